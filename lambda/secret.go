package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"

	"github.com/hotkeys-dev/hotkeys/redact"
)

// secretGetter is the one Secrets Manager call the function makes.
type secretGetter interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

// secretTimeout bounds the cold start's one read, retries included (the
// client's retryer, retries.go): a Secrets Manager that hangs makes the
// cold start fail within it, and one that answers slowly leaves the first
// invocation what its budget has left (budget.go: the cold start's time
// is charged to it).
const secretTimeout = 2 * time.Second

// errSecret is wrapped by every failure to get a usable key-redaction
// secret. The function never falls back to an unkeyed hash: it does not
// start.
var errSecret = errors.New("the key-redaction secret cannot be used")

// loadRedactor reads the key-redaction secret once, at cold start, and
// keys the Hasher with it: SecretString's UTF-8 bytes, or SecretBinary's
// bytes, exactly as `hotkeys hash-key` takes them from
// HOTKEYS_KEY_REDACTION_SECRET. Its errors name the secret's ARN and what
// to grant, never the secret.
func loadRedactor(ctx context.Context, sm secretGetter, arn string) (*redact.Hasher, error) {
	ctx, cancel := context.WithTimeout(ctx, secretTimeout)
	defer cancel()
	out, err := sm.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: &arn})
	if err != nil {
		hint := "the function's role needs secretsmanager:GetSecretValue on exactly this ARN, and kms:Decrypt on the secret's KMS key if that is a customer managed key"
		var ae smithy.APIError
		if errors.As(err, &ae) && ae.ErrorCode() == "ResourceNotFoundException" {
			hint = "no such secret in this account and region: check HOTKEYS_KEY_REDACTION_SECRET_ARN (the template's KeyRedactionSecretArn), a full ARN with its 6-character suffix"
		}
		return nil, fmt.Errorf("%w: HOTKEYS_KEY_REDACTION_SECRET_ARN=%s: secretsmanager:GetSecretValue failed: %w; %s. Keys are never hashed without the secret, so the function does not start",
			errSecret, arn, err, hint)
	}
	secret := out.SecretBinary
	if out.SecretString != nil {
		secret = []byte(*out.SecretString)
	}
	h, err := redact.New(secret)
	if err != nil {
		// err says how short the secret is, never what it holds.
		return nil, fmt.Errorf("%w: HOTKEYS_KEY_REDACTION_SECRET_ARN=%s: %w; store at least %d random bytes (the template generates 64 characters)",
			errSecret, arn, err, redact.MinSecretLen)
	}
	return h, nil
}
