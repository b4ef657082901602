
8
PlaceholderPlaceholder*
shape:[*
dtype0
h
StringToHashBucketStrongStringToHashBucketStrongPlaceholder*
key
*
num_buckets€€€€€ "ª