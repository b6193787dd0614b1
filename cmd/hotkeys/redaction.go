package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/redact"
)

// secretEnv holds the key-redaction secret for the CLI. The deployed
// function reads the same secret from Secrets Manager (its ARN is in
// HOTKEYS_KEY_REDACTION_SECRET_ARN), never from an environment variable.
const secretEnv = "HOTKEYS_KEY_REDACTION_SECRET"

// oldSaltEnv was the secret's name before it was required. It is refused,
// not read, so that nobody believes a renamed variable is still in force.
const oldSaltEnv = "HOTKEYS_KEY_REDACTION_SALT"

// unsaltedNote is printed on stderr whenever keys are hashed without a
// secret, so that nobody mistakes the output for protected.
const unsaltedNote = "hotkeys: --key-redaction hash-unsalted: these stand-ins have no secret; anyone can reverse them by hashing a list of likely keys"

// redactionFlags are the flags that choose how keys are redacted.
type redactionFlags struct {
	mode       string
	secretFile string
}

const redactionModeHelp = "`mode` none; hash: every key as a keyed hash, with the secret from $" + secretEnv +
	" or --key-redaction-secret-file; or hash-unsalted: a hash with no secret, which anyone can reverse by hashing a dictionary of likely keys (e-mail addresses, ids): it hides keys from nobody who wants them"

func (r *redactionFlags) register(fs *flag.FlagSet, defaultMode redact.Mode) {
	fs.StringVar(&r.mode, "key-redaction", string(defaultMode), redactionModeHelp)
	fs.StringVar(&r.secretFile, "key-redaction-secret-file", "",
		"read the key-redaction secret from `FILE` (at least 16 bytes; one trailing newline is dropped). Use the deployed function's secret to get its hashes")
}

// hasher resolves the flags and the environment into a Hasher (nil: no
// redaction). Every error is a usage error that says what to do.
func (r *redactionFlags) hasher(getenv func(string) string) (*redact.Hasher, error) {
	mode, err := redact.ParseMode(r.mode)
	if err != nil {
		return nil, usageError{fmt.Errorf("--key-redaction %q: want none, hash or hash-unsalted", r.mode)}
	}
	if mode != redact.Hash {
		if r.secretFile != "" {
			return nil, usageError{fmt.Errorf("--key-redaction-secret-file is given but --key-redaction is %s: did you mean --key-redaction hash?", mode)}
		}
		// The environment variable is ignored here: a secret exported in
		// a shell profile must not stop a run without redaction.
		return redact.ForMode(mode, nil)
	}
	secret, err := r.secret(getenv)
	if err != nil {
		return nil, err
	}
	h, err := redact.New(secret)
	switch {
	case errors.Is(err, redact.ErrNoSecret):
		if getenv(oldSaltEnv) != "" {
			return nil, usageError{fmt.Errorf("--key-redaction hash: $%s is no longer read; rename it %s (at least %d bytes)", oldSaltEnv, secretEnv, redact.MinSecretLen)}
		}
		return nil, usageError{fmt.Errorf("--key-redaction hash needs a secret, or anyone can reverse the hashes by hashing a dictionary of likely keys. "+
			"Set %s, or pass --key-redaction-secret-file FILE (at least %d bytes). "+
			"To match a deployed function's hashes, use its secret: aws secretsmanager get-secret-value --secret-id ARN --query SecretString --output text > FILE",
			secretEnv, redact.MinSecretLen)}
	case errors.Is(err, redact.ErrShortSecret):
		return nil, usageError{fmt.Errorf("--key-redaction hash: the secret has %d bytes, want at least %d: a short secret can be guessed along with the keys", len(secret), redact.MinSecretLen)}
	case err != nil:
		return nil, usageError{err}
	}
	return h, nil
}

// secret reads the secret from the file or the environment, not both: two
// sources would leave it unclear which one made the hashes.
func (r *redactionFlags) secret(getenv func(string) string) ([]byte, error) {
	env := getenv(secretEnv)
	if r.secretFile == "" {
		return []byte(env), nil
	}
	if env != "" {
		return nil, usageError{fmt.Errorf("the key-redaction secret is given twice, by $%s and by --key-redaction-secret-file: give one", secretEnv)}
	}
	b, err := os.ReadFile(r.secretFile)
	if err != nil {
		return nil, usageError{fmt.Errorf("--key-redaction-secret-file: %w", err)}
	}
	// Files written by echo or an editor end in a newline that is no part
	// of the secret; Secrets Manager's SecretString has none.
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	return b, nil
}

const hashKeyAbout = `Prints the redacted form of each KEY, one a line, in the order given, as
every report, metric and log line shows it with the same secret: the way to
tell whether a hashed key on a dashboard is one you suspect. The secret comes
from $HOTKEYS_KEY_REDACTION_SECRET or --key-redaction-secret-file, as for the
other commands; for a deployed function, use its secret:

  aws secretsmanager get-secret-value --secret-id ARN --query SecretString --output text > secret
  hotkeys hash-key --key-redaction-secret-file secret OPS_LOG

(ARN: the function's HOTKEYS_KEY_REDACTION_SECRET_ARN; see docs/security.md).
`

func runHashKey(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hash-key", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: hotkeys hash-key [flags] KEY...\n\n%s\nFlags:\n", hashKeyAbout)
		fs.PrintDefaults()
	}
	var rf redactionFlags
	rf.register(fs, redact.Hash)
	typ := fs.String("type", "S", "the keys' DynamoDB `type`: S (a string), N (a number, any spelling DynamoDB accepts) or B (base64)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usageError{err}
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageError{errors.New("hash-key: name at least one KEY")}
	}
	h, err := rf.hasher(os.Getenv)
	if err != nil {
		return err
	}
	if h == nil {
		return usageError{errors.New("hash-key: --key-redaction none hashes nothing: want hash or hash-unsalted")}
	}
	if h.Unsalted() {
		fmt.Fprintln(stderr, unsaltedNote)
	}
	var out bytes.Buffer
	for _, k := range fs.Args() {
		value, err := canonicalKey(*typ, k)
		if err != nil {
			return usageError{err}
		}
		fmt.Fprintln(&out, h.Key((*typ)[0], value))
	}
	_, err = stdout.Write(out.Bytes())
	return err
}

// canonicalKey turns a key as typed into the bytes the decoder hashes.
func canonicalKey(typ, k string) ([]byte, error) {
	switch typ {
	case "S":
		return []byte(k), nil
	case "N":
		v, err := ddb.CanonicalNumber(nil, []byte(k))
		if err != nil {
			return nil, fmt.Errorf("hash-key --type N: %w", err)
		}
		return v, nil
	case "B":
		v, err := base64.StdEncoding.DecodeString(k)
		if err != nil {
			return nil, fmt.Errorf("hash-key --type B: %q is not standard base64: %w", k, err)
		}
		return v, nil
	}
	return nil, fmt.Errorf("hash-key --type %q: want S, N or B", typ)
}
