// The KeywordText module. See README.md for the data flow.
