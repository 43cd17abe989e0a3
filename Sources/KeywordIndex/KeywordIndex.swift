// The KeywordIndex module. See README.md for the data flow.
