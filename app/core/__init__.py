"""Pure helpers (RUT, money, dates, text, Chile geography) and the typed errors, with no app dependencies."""
