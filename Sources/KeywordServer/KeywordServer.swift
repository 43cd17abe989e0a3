// The KeywordServer module. See README.md for the data flow.
