//go:build race

package framework

// raceEnabled reports whether this binary was built with -race, so the server
// is built the same way.
const raceEnabled = true
