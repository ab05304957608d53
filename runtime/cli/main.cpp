// PLACEHOLDER: the dmlrt command line (being written now).
int main() { return 2; }
