// The KeywordVectors module. See README.md for the data flow.
