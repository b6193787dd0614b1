package clientwatch_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCoreLinksNoCloudWatchNorOpenTelemetry: an application that adds the
// middleware links neither the CloudWatch SDK nor package alert, nor
// OpenTelemetry: their adapters (alert.ClientPublisher,
// clientwatch/otelwatch) are packages of their own. Nor does it import
// package record: DynamoDB's size rules are ddb's.
func TestCoreLinksNoCloudWatchNorOpenTelemetry(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/hotkeys-dev/hotkeys/clientwatch").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var found []string
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "cloudwatch") || strings.Contains(dep, "opentelemetry") || dep == "github.com/hotkeys-dev/hotkeys/alert" {
			found = append(found, dep)
		}
	}
	if len(found) > 0 {
		t.Errorf("clientwatch depends on %v", found)
	}
	// DynamoDB's rules come from ddb, not from the stream decoder.
	out, err = exec.Command("go", "list", "-f", "{{join .Imports \" \"}}", "github.com/hotkeys-dev/hotkeys/clientwatch").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if imp == "github.com/hotkeys-dev/hotkeys/record" {
			t.Errorf("clientwatch imports %s", imp)
		}
	}
}
