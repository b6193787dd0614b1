package clientwatch

import (
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
)

func TestStatementKey(t *testing.T) {
	params := []types.AttributeValue{&types.AttributeValueMemberS{Value: "p0"}, &types.AttributeValueMemberN{Value: "7"}}
	for _, tc := range []struct {
		stmt  string
		table string
		read  bool
		key   types.AttributeValue // nil: unattributed
	}{
		{`SELECT * FROM "Users" WHERE "pk" = ?`, "Users", true, params[0]},
		{`select name from Users where pk = 'ada''s'`, "Users", true, &types.AttributeValueMemberS{Value: "ada's"}},
		{`SELECT * FROM "Users" WHERE pk=12.50 AND sk > ?`, "Users", true, &types.AttributeValueMemberN{Value: "12.50"}},
		{`UPDATE "Users" SET n = ? WHERE "pk" = ?`, "Users", false, params[1]},
		{`DELETE FROM "Users" WHERE "pk" = 'gone'`, "Users", false, &types.AttributeValueMemberS{Value: "gone"}},
		{`INSERT INTO "Users" VALUE {'pk': ?, 'n': 1}`, "Users", false, params[0]},
		{`INSERT INTO "Users" VALUE {'pk' : 'lit'}`, "Users", false, &types.AttributeValueMemberS{Value: "lit"}},
		{`SELECT * FROM "Users"`, "Users", true, nil},                                 // a scan
		{`SELECT * FROM "Users" WHERE "pk" IN ['a', 'b']`, "Users", true, nil},        // several keys
		{`SELECT * FROM "Users" WHERE "pk" = 'a' OR "pk" = 'b'`, "Users", true, nil},  // several keys
		{`SELECT * FROM "Users" WHERE "pk" = 'a' AND "pk" = 'b'`, "Users", true, nil}, // named twice: not guessed
		{`SELECT * FROM "Users" WHERE begins_with("pk", 'a')`, "Users", true, nil},
		{`SELECT * FROM "Users" WHERE m.pk = 'x'`, "Users", true, nil}, // a nested path
		{`SELECT * FROM "Users"."byName" WHERE "pk" = 'a'`, "", true, nil},
		{`SELECT * FROM "Users" WHERE "pk" = ?`, "Users", true, params[0]},
		{`SELECT * FROM "Users" WHERE "pk" = ? AND x = ?`, "Users", true, params[0]},
		{`SELECT * FROM "Users" WHERE x = ? AND "pk" = ?`, "Users", true, params[1]},
		{`SELECT * FROM "Users" WHERE x = ? AND "pk" = ? AND y = ?`, "Users", true, params[1]},
		{`SELECT * FROM "Users" WHERE x = ? AND y = ? AND "pk" = ?`, "Users", true, nil}, // its parameter is missing
		{``, "", false, nil},
	} {
		st := parseStatement(tc.stmt)
		key, ok := st.key("pk", params)
		if st.table != tc.table || st.read != tc.read || ok != (tc.key != nil) {
			t.Errorf("%s: table %q read %v key %#v, want %q %v %#v", tc.stmt, st.table, st.read, key, tc.table, tc.read, tc.key)
		}
		if diff := cmp.Diff(tc.key, key, exportAll); diff != "" {
			t.Errorf("%s: key (-want +got):\n%s", tc.stmt, diff)
		}
	}
}

func FuzzStatement(f *testing.F) {
	f.Add(`SELECT * FROM "Users" WHERE "pk" = ? AND x = 'it''s'`)
	f.Add(`INSERT INTO t VALUE {'pk': 1e3}`)
	f.Fuzz(func(t *testing.T, s string) {
		st := parseStatement(s)
		_, _ = st.key("pk", nil)
	})
}

var exportAll = cmp.Exporter(func(reflect.Type) bool { return true })
