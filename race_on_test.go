//go:build race

package main

// raceOn: the race detector multiplies memory (its shadow memory) by several times.
const raceOn = true
