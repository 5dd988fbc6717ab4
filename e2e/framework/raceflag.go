package framework

// RaceEnabled reports whether the tests, and so the capstan binary they
// build, run under the race detector.
const RaceEnabled = raceEnabled
