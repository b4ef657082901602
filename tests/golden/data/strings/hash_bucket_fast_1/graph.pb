
8
PlaceholderPlaceholder*
shape:[*
dtype0
P
StringToHashBucketFastStringToHashBucketFastPlaceholder*
num_buckets"ª