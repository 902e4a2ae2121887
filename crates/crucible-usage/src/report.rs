//! placeholder: the reports (helper R).
