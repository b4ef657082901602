
8
PlaceholderPlaceholder*
shape:[*
dtype0
y
StringToHashBucketStrongStringToHashBucketStrongPlaceholder*
num_buckets€€€€€ *
key
ÿÿÿÿÿÿÿÿÿ€€€€€€€€@"ª