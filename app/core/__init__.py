"""Pure helper functions (RUT, money, dates, text, Chile geography) with no app dependencies."""
