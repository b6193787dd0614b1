//go:build !race

package history

// raceEnabled says that the tests run under the race detector.
const raceEnabled = false
