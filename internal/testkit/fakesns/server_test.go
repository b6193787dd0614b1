package fakesns

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/smithy-go"
)

const topic = "arn:aws:sns:us-east-1:123456789012:hotkeys-alarms"

// TestRealClient drives the fake with aws-sdk-go-v2's own client, so that
// the wire format is the SDK's, not this package's idea of it: what SNS
// accepts is kept, what it refuses is refused with SNS's error code, and
// an injected failure reaches the client as SNS would send it.
func TestRealClient(t *testing.T) {
	s := New()
	defer s.Close()
	c := s.Client()
	ctx := context.Background()

	publish := func(arn, subject, message string) error {
		in := &sns.PublishInput{TopicArn: aws.String(arn), Message: aws.String(message)}
		if subject != "" {
			in.Subject = aws.String(subject)
		}
		_, err := c.Publish(ctx, in)
		return err
	}
	ok := Message{TopicArn: topic, Subject: "hotkeys: Shop OPS_LOG é", Message: "line 1\nline 2 😀"}
	if err := publish(ok.TopicArn, ok.Subject, ok.Message); err != nil {
		t.Fatalf("Publish: %v", err)
	}

	for _, tc := range []struct {
		name, arn, subject, message, want string
	}{
		{"not a topic", "hotkeys-alarms", "", "m", "InvalidParameter: Invalid parameter: TopicArn"},
		{"empty message", topic, "", "", "InvalidParameter: Invalid parameter: Empty message"},
		{"message too long", topic, "", strings.Repeat("x", MaxMessageBytes+1), "InvalidParameter: Invalid parameter: Message too long"},
		{"subject of 100 characters", topic, strings.Repeat("é", 100), "m", "InvalidParameter: Invalid parameter: Subject must be less than 100 characters"},
		{"subject with a line break", topic, "a\nb", "m", "InvalidParameter: Invalid parameter: Subject must not contain line breaks or control characters"},
	} {
		err := publish(tc.arn, tc.subject, tc.message)
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != "InvalidParameter" {
			t.Errorf("%s: %v, want InvalidParameter", tc.name, err)
		}
		if r := s.Rejected(); len(r) == 0 || r[len(r)-1] != tc.want {
			t.Errorf("%s: rejected %q, want last %q", tc.name, r, tc.want)
		}
	}

	s.FailNext(1, "AuthorizationError")
	err := publish(topic, "", "m")
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "AuthorizationError" {
		t.Errorf("injected failure: %v, want AuthorizationError", err)
	}
	if got := s.Published(); !slices.Equal(got, []Message{ok}) {
		t.Errorf("published %+v, want only %+v", got, ok)
	}
	if n := s.Attempts(); n != 7 {
		t.Errorf("%d attempts, want 7 (one per call: the client does not retry)", n)
	}
}
