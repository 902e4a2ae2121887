//! Every real fixture of each agent imported and checked against facts counted from the source.

mod claude_code;
