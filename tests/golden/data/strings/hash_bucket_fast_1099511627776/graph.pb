
8
PlaceholderPlaceholder*
shape:[*
dtype0
U
StringToHashBucketFastStringToHashBucketFastPlaceholder*
num_buckets€€€€€ "ª