#include <stdlib.h>

static int helper(int x)
{
	if (x > 2)
		return x * 2;
	return -1;
}

int parse(int a, int b)
{
	int *p = malloc(sizeof(*p));

	if (!p)
		return -12;
	*p = helper(a);
	if (b)
		*p += b;
	free(p);
	return 0;
}

int unused(void)
{
	return 7;
}

int main(int argc, char **argv)
{
	(void)argv;
	return parse(argc + 2, 0);
}
