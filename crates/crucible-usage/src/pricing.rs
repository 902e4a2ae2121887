//! placeholder: the price table (helper P).
