// The KeywordModel module. See README.md for the data flow.
