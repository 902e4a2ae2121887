mod codify;
mod shell_lines;
