// A module whose only diagnostic comes from a pass option.
// expected-error@+1 {{regst-count 0 is not at least 1}}
module {
}
