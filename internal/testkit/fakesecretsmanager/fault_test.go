package fakesecretsmanager

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
)

// TestFaults: each fault reaches the SDK's own client as Secrets
// Manager's would: a hang ends only when the client's context does, a 500
// and a throttle are retried, a denial is not, and a slow answer gives the
// secret, late.
func TestFaults(t *testing.T) {
	for _, tc := range fault.Cases("InternalServiceError", "ThrottlingException", "AccessDeniedException", 3) {
		t.Run(tc.Mode.String(), func(t *testing.T) {
			t.Parallel()
			s := New()
			defer s.Close()
			s.PutString(arn, "correct horse battery staple")
			const delay = 50 * time.Millisecond
			s.SetFault(tc.Mode, delay)
			ctx, cancel := fault.CallContext(tc.Mode, s.Faulted)
			defer cancel()
			c := s.Client(func(o *secretsmanager.Options) {
				o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
					so.MaxAttempts, so.RateLimiter = 3, ratelimit.None
					so.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
				})
			})
			began := time.Now()
			out, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
			fault.CheckCall(t, tc.Mode, err, tc.Code, time.Since(began), delay)
			if tc.Mode == fault.Slow && (out == nil || aws.ToString(out.SecretString) != "correct horse battery staple") {
				t.Errorf("slow: %+v, want the secret", out)
			}
			if s.Faulted() != tc.Attempts {
				t.Errorf("%d faulted requests, want %d", s.Faulted(), tc.Attempts)
			}
		})
	}
}
