
8
PlaceholderPlaceholder*
dtype0*
shape:[
P
StringToHashBucketFastStringToHashBucketFastPlaceholder*
num_buckets"ª