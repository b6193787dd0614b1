// Package ddb holds DynamoDB's own rules, once, for every part of hotkeys
// that charges a write or a read to a key: the Lambda's stream decoder,
// `hotkeys replay` and `hotkeys watch` (package record), and the SDK
// middleware (package clientwatch). It reads no JSON and imports no SDK:
// each caller walks its own form of an item and asks ddb what each part
// costs.
//
// It holds:
//   - key types and the canonical form of a key value (Key);
//   - number parsing, size and canonical form (ParseNumber, NumberSize,
//     CanonicalNumber);
//   - the item-size rule's byte costs (ContainerOverhead, ElementOverhead,
//     BoolSize, NullSize);
//   - read and write units, the one rounding of a size to units
//     (WriteUnits, ReadUnits, ItemWriteUnits), and a partition's limits
//     (PartitionWriteUnits, PartitionReadUnits);
//   - index definitions (Index, Projection) and the global secondary index
//     write charge as a pure function of the facts of one write
//     (ChargeIndex).
//
// The rules are AWS's, from the Amazon DynamoDB Developer Guide:
//   - "DynamoDB item sizes and formats",
//     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
//   - "DynamoDB read and write operations",
//     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
//   - "Provisioned throughput considerations for global secondary indexes",
//     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations
//   - "Partitions and data distribution",
//     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html
//
// Where hotkeys departs from the guide, DynamoDB Local (AWS's own
// implementation, which reports the capacity it charges for every write)
// is the oracle, and the tests of package streams hold these rules to it:
//   - Numbers. The guide's "1 byte per two significant digits, plus 1" is,
//     in its own words, approximate. DynamoDB stores a number as one
//     exponent byte and base-100 digit pairs aligned on the decimal point,
//     plus a byte for a negative number, and that is what it charges:
//     1.5 is 3 bytes where the guide's rule says 2 (see Decimal.Size).
//   - Indexes. Two cases the guide leaves open are charged as DynamoDB
//     Local charges them (see ChargeIndex). Where DynamoDB Local departs
//     from the guide (an item that has one key attribute of a two-key index
//     before the write and only the other after it), the guide wins: the
//     item is in the index neither time, and the write costs it nothing.
package ddb
