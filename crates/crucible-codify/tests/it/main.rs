mod codify;
