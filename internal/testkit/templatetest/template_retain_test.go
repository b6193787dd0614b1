package templatetest

import (
	"slices"
	"testing"
)

// retainedTypes are the resource types whose loss a redeploy cannot undo:
// the redaction secret (a new one gives every key a new stand-in, so stored
// and alarmed hashes no longer match) and tables (the window history).
var retainedTypes = []string{"AWS::SecretsManager::Secret", "AWS::DynamoDB::Table"}

// TestTemplateRetainsWhatARedeployCannotRecreate checks that every resource
// of those types survives the stack's deletion and a replacing update, and
// that the two the template has today are among them. docs/deploy.md says
// how to delete them by hand.
func TestTemplateRetainsWhatARedeployCannotRecreate(t *testing.T) {
	// The parameters under which both exist.
	s := deploy(t, readTemplate(t), map[string]string{"History": "on", "KeyRedaction": "hash"})
	var kept []string
	for _, typ := range retainedTypes {
		for _, id := range s.Resources(typ) {
			r := mustResource(t, s, id)
			for _, policy := range []string{"DeletionPolicy", "UpdateReplacePolicy"} {
				if r[policy] != "Retain" {
					t.Errorf("%s (%s): %s %v, want Retain", id, typ, policy, r[policy])
				}
			}
			kept = append(kept, id)
		}
	}
	slices.Sort(kept)
	if want := []string{"HistoryTable", "KeyRedactionSecret"}; !slices.Equal(kept, want) {
		t.Errorf("resources of %v: %v, want %v", retainedTypes, kept, want)
	}
}
