//go:build !race

package main

// raceEnabled says that the tests run under the race detector, so that the
// bootstrap they start is built with it too.
const raceEnabled = false
