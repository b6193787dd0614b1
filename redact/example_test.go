package redact_test

import (
	"errors"
	"fmt"

	"github.com/hotkeys-dev/hotkeys/redact"
)

func Example() {
	h, err := redact.New([]byte("correct horse battery staple"))
	if err != nil {
		panic(err)
	}
	fmt.Println(h.Key('S', []byte("STATUS#ACTIVE")))

	// Without a secret, New refuses: an unkeyed hash is reversed by a
	// dictionary, and asking for one takes NewUnsalted, by name.
	_, err = redact.New(nil)
	fmt.Println(errors.Is(err, redact.ErrNoSecret))
	// Output:
	// h:53e259294e636ee6
	// true
}
