// Package sample is what the fidelity script opens in vim.
package sample

import (
	"fmt"
	"strings"
)

// Greeting says hello in several scripts: 世界, мир, κόσμε.
func Greeting(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "hello %s", n) // a comment with a tab	here
	}
	return b.String()
}

func main() {
	fmt.Println(Greeting([]string{"alice", "bob", "中文"}))
}
