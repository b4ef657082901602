
8
PlaceholderPlaceholder*
shape:[*
dtype0
H
StringToHashBucketStringToHashBucketPlaceholder*
num_buckets"ª