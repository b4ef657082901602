
8
PlaceholderPlaceholder*
dtype0*
shape:[
Q
StringToHashBucketFastStringToHashBucketFastPlaceholder*
num_bucketsè"ª