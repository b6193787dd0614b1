package clientwatch

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// PartiQL: a statement names its partition key when its WHERE clause (or,
// for INSERT, its VALUE document) says `pk = ?` or `pk = <literal>` with
// no OR: then the call is charged to that key. Anything else (a scan, an
// IN list, an OR, a key in a function call) counts as unattributed.

// statement is what the detector reads of a PartiQL statement.
type statement struct {
	table string
	read  bool
	toks  []token
	where int // index in toks of the first token of the WHERE clause or VALUE document; -1 when none
}

type tokenKind uint8

const (
	tokWord   tokenKind = iota + 1 // a bare word or number
	tokQuoted                      // "name"
	tokString                      // 'text'
	tokParam                       // ?
	tokPunct                       // any other single character
)

type token struct {
	kind  tokenKind
	text  string // unquoted
	param int    // for tokParam: its position among the statement's parameters
}

func tokenize(s string) []token {
	var toks []token
	params := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for j < len(s) {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c { // doubled quote
						b.WriteByte(c)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			kind := tokQuoted
			if c == '\'' {
				kind = tokString
			}
			toks = append(toks, token{kind: kind, text: b.String()})
			i = j + 1
		case c == '?':
			toks = append(toks, token{kind: tokParam, param: params})
			params++
			i++
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			toks = append(toks, token{kind: tokWord, text: s[i:j]})
			i = j
		default:
			toks = append(toks, token{kind: tokPunct, text: s[i : i+1]})
			i++
		}
	}
	return toks
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c == '+' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func (t token) is(word string) bool { return t.kind == tokWord && strings.EqualFold(t.text, word) }

// parseStatement finds the table (the name after FROM, UPDATE or INTO) and
// where the key may be named.
func parseStatement(s string) statement {
	st := statement{toks: tokenize(s), where: -1}
	if len(st.toks) == 0 {
		return st
	}
	st.read = st.toks[0].is("SELECT")
	for i, t := range st.toks {
		if (t.is("FROM") || t.is("UPDATE") || t.is("INTO")) && st.table == "" && i+1 < len(st.toks) {
			n := st.toks[i+1]
			if n.kind == tokQuoted || n.kind == tokWord {
				st.table = n.text
				// "table"."index" reads an index: its key is not the table's.
				if i+3 < len(st.toks) && st.toks[i+2].text == "." {
					st.table = ""
					return st
				}
			}
		}
		if (t.is("WHERE") || t.is("VALUE")) && st.where < 0 {
			st.where = i + 1
		}
	}
	return st
}

// key returns the partition key value the statement names, if it names
// exactly one.
func (st statement) key(pk string, params []types.AttributeValue) (types.AttributeValue, bool) {
	if st.where < 0 {
		return nil, false
	}
	toks := st.toks[st.where:]
	var found types.AttributeValue
	for i, t := range toks {
		if t.is("OR") || t.is("IN") {
			return nil, false
		}
		if (t.kind == tokQuoted || t.kind == tokWord || t.kind == tokString) && t.text == pk &&
			i+2 < len(toks) && (toks[i+1].text == "=" || toks[i+1].text == ":") && toks[i+1].kind == tokPunct {
			if i > 0 && toks[i-1].kind == tokPunct && toks[i-1].text == "." {
				continue // a nested path, not the attribute
			}
			v, ok := value(toks[i+2], params)
			if !ok || found != nil {
				return nil, false
			}
			found = v
		}
	}
	return found, found != nil
}

func value(t token, params []types.AttributeValue) (types.AttributeValue, bool) {
	switch t.kind {
	case tokParam:
		if t.param < len(params) {
			return params[t.param], true
		}
	case tokString:
		return &types.AttributeValueMemberS{Value: t.text}, true
	case tokWord:
		if t.text != "" && (t.text[0] == '-' || t.text[0] == '+' || t.text[0] == '.' || '0' <= t.text[0] && t.text[0] <= '9') {
			return &types.AttributeValueMemberN{Value: t.text}, true
		}
	}
	return nil, false
}
