// Package wait holds the small timing helpers the agents share: a sleep that
// ends with its context, jitter, and exponential backoff with jitter. A
// Backoff is owned by one goroutine; the functions are safe for concurrent use.
package wait
