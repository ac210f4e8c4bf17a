// A types module whose own code fails while it loads, quoting a credential in its error.
throw new Error("boom: the key sk-abcdefghijklmnop was refused; also Bearer abcdefghijklmnopqrstu");
