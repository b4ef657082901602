
8
PlaceholderPlaceholder*
shape:[*
dtype0
h
StringToHashBucketStrongStringToHashBucketStrongPlaceholder*
num_buckets€€€€€ *
key
"ª