package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/history/store"
)

// served holds the items served, per partition key value, in sort-key
// order, each already in DynamoDB's JSON.
type served struct {
	parts map[string][]item
}

type item struct {
	sk   string
	json []byte
	size int // DynamoDB's size of the item: what a Query page counts
}

func newServed() *served { return &served{parts: map[string][]item{}} }

// put adds an item and returns its size.
func (s *served) put(av map[string]types.AttributeValue) int {
	pk := av[store.AttrDay].(*types.AttributeValueMemberS).Value
	sk := av[store.AttrWindow].(*types.AttributeValueMemberS).Value
	b, size := itemJSON(av)
	s.parts[pk] = append(s.parts[pk], item{sk: sk, json: b, size: size})
	return size
}

func (s *served) sort() {
	for _, items := range s.parts {
		slices.SortFunc(items, func(a, b item) int { return strings.Compare(a.sk, b.sk) })
	}
}

// itemJSON writes an item as DynamoDB's JSON protocol carries it, and
// returns its size as DynamoDB counts it (names and values; a number as
// its digits, which is close enough for paging).
func itemJSON(av map[string]types.AttributeValue) ([]byte, int) {
	var b bytes.Buffer
	size := 0
	b.WriteByte('{')
	for i, name := range sortedKeys(av) {
		if i > 0 {
			b.WriteByte(',')
		}
		q, _ := json.Marshal(name)
		b.Write(q)
		size += len(name)
		switch v := av[name].(type) {
		case *types.AttributeValueMemberS:
			q, _ := json.Marshal(v.Value)
			fmt.Fprintf(&b, `:{"S":%s}`, q)
			size += len(v.Value)
		case *types.AttributeValueMemberN:
			fmt.Fprintf(&b, `:{"N":"%s"}`, v.Value)
			size += len(v.Value)
		case *types.AttributeValueMemberB:
			fmt.Fprintf(&b, `:{"B":"%s"}`, base64.StdEncoding.EncodeToString(v.Value))
			size += len(v.Value)
		case *types.AttributeValueMemberBOOL:
			fmt.Fprintf(&b, `:{"BOOL":%v}`, v.Value)
			size++
		case *types.AttributeValueMemberNS:
			q, _ := json.Marshal(v.Value)
			fmt.Fprintf(&b, `:{"NS":%s}`, q)
			for _, n := range v.Value {
				size += len(n)
			}
		default:
			panic(fmt.Sprintf("attribute %s of type %T", name, v))
		}
	}
	b.WriteByte('}')
	return b.Bytes(), size
}

func sortedKeys(m map[string]types.AttributeValue) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// pageLimit is DynamoDB's: a Query page stops at 1 MB of items read.
const pageLimit = 1 << 20

// server answers DynamoDB's Query, as the service does over its JSON 1.0
// protocol, for the key conditions history/store sends: partition key
// equal, sort key between.
type server struct {
	table string
	st    *served
	// continued counts the pages that ended before the query's items did.
	continued atomic.Int64
}

var _ http.Handler = (*server)(nil)

type queryInput struct {
	TableName                 string
	ExpressionAttributeValues map[string]map[string]string
	ExclusiveStartKey         map[string]map[string]string
	Limit                     int
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if op := r.Header.Get("X-Amz-Target"); op != "DynamoDB_20120810.Query" {
		fail(w, "UnknownOperationException", "this server answers Query only, not "+op)
		return
	}
	var in queryInput
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		fail(w, "SerializationException", err.Error())
		return
	}
	if in.TableName != s.table {
		fail(w, "ResourceNotFoundException", "Requested resource not found: Table: "+in.TableName+" not found")
		return
	}
	v := in.ExpressionAttributeValues
	pk, lo, hi := v[":d"]["S"], v[":lo"]["S"], v[":hi"]["S"]
	if pk == "" || lo == "" || hi == "" {
		fail(w, "ValidationException", "want #d = :d AND #w BETWEEN :lo AND :hi")
		return
	}
	items := s.st.parts[pk]
	i, _ := slices.BinarySearchFunc(items, lo, func(it item, k string) int { return strings.Compare(it.sk, k) })
	if start := in.ExclusiveStartKey[store.AttrWindow]["S"]; start != "" {
		i, _ = slices.BinarySearchFunc(items, start, func(it item, k string) int { return strings.Compare(it.sk, k) })
		for i < len(items) && items[i].sk <= start {
			i++
		}
	}
	var body bytes.Buffer
	body.WriteString(`{"Items":[`)
	n, read := 0, 0
	var last string
	for ; i < len(items) && items[i].sk <= hi; i++ {
		if read >= pageLimit || (in.Limit > 0 && n == in.Limit) {
			break
		}
		if n > 0 {
			body.WriteByte(',')
		}
		body.Write(items[i].json)
		read += items[i].size
		last = items[i].sk
		n++
	}
	fmt.Fprintf(&body, `],"Count":%d,"ScannedCount":%d`, n, n)
	if i < len(items) && items[i].sk <= hi && n > 0 {
		q, _ := json.Marshal(last)
		p, _ := json.Marshal(pk)
		fmt.Fprintf(&body, `,"LastEvaluatedKey":{"%s":{"S":%s},"%s":{"S":%s}}`, store.AttrDay, p, store.AttrWindow, q)
		s.continued.Add(1)
	}
	body.WriteByte('}')
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body.Bytes())), 10))
	w.Header().Set("Content-Length", strconv.Itoa(body.Len()))
	w.Write(body.Bytes())
}

// fail answers with DynamoDB's error shape.
func fail(w http.ResponseWriter, typ, msg string) {
	b, _ := json.Marshal(map[string]string{"__type": "com.amazonaws.dynamodb.v20120810#" + typ, "message": msg})
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("x-amzn-ErrorType", typ)
	w.WriteHeader(http.StatusBadRequest)
	w.Write(b)
}
