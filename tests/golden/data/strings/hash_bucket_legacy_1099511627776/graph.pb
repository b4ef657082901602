
8
PlaceholderPlaceholder*
shape:[*
dtype0
M
StringToHashBucketStringToHashBucketPlaceholder*
num_buckets€€€€€ "ª