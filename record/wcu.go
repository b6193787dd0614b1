package record

// WriteUnits returns the write capacity units DynamoDB charged for the
// write a stream record reports, from the sizes of its images (-1 when
// absent) and of its keys: ceil(size/1024), at least 1; INSERT is charged
// the new item, MODIFY the larger of old and new, REMOVE the old item, and
// a TTL delete nothing. When the image that decides is missing (a
// KEYS_ONLY stream, MODIFY or REMOVE without OldImage, INSERT or MODIFY
// without NewImage) it charges the largest size it can see, at least 1
// WCU, and reports exact=false: the true charge may be higher.
func WriteUnits(ev EventName, newSize, oldSize, keysSize int, ttl bool) (wcu uint64, exact bool) {
	if ttl {
		return 0, true
	}
	switch ev {
	case Insert:
		if newSize >= 0 {
			return units(newSize), true
		}
	case Modify:
		if newSize >= 0 && oldSize >= 0 {
			return units(max(newSize, oldSize)), true
		}
	case Remove:
		if oldSize >= 0 {
			return units(oldSize), true
		}
	}
	return units(max(newSize, oldSize, keysSize)), false
}

// units is ceil(size/1 KB), at least 1.
func units(size int) uint64 {
	if size <= 1024 {
		return 1
	}
	return uint64(size+1023) / 1024
}
