//go:build race

package forecast

// raceEnabled says that the tests run under the race detector.
const raceEnabled = true
