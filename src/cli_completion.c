/*
 * cli_completion.c — `fleetsim completion bash`: print a bash completion
 * script.  Subcommands come from the command table (cli_commands.c), and
 * each one's options from its own --help text, read when the script is
 * printed (usage lines, and the first column of lines that begin with an
 * option), so the script lists what the binary accepts.  Buffers are heap
 * and freed before returning.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fleetsim/common.h"

static const char completion_help[] =
	"usage: fleetsim completion bash\n"
	"\n"
	"Print a bash completion script on stdout: subcommands, each one's options,\n"
	"scenario files (*.json) and directories where a command takes them.  Use\n"
	"it with\n"
	"  source <(fleetsim completion bash)\n"
	"or install it as /usr/share/bash-completion/completions/fleetsim.\n";

/* The text `main` prints to stdout for argv (heap, NUL-terminated), or
 * NULL when it cannot be captured.  stdout is pointed at a temporary file
 * for the call and restored. */
static char *capture(int (*main_fn)(int, char **), int argc, char **argv)
{
	FILE *tmp = tmpfile();
	char *text = NULL;
	long len;
	int saved;

	if (tmp == NULL)
		return NULL;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		fclose(tmp);
		return NULL;
	}
	(void)main_fn(argc, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	if (fseek(tmp, 0, SEEK_END) == 0 && (len = ftell(tmp)) >= 0 &&
	    fseek(tmp, 0, SEEK_SET) == 0) {
		text = fs_xmalloc((size_t)len + 1);
		text[fread(text, 1, (size_t)len, tmp)] = '\0';
	}
	fclose(tmp);
	return text;
}

/* Append word to the space-separated list `list` (cap bytes) unless there. */
static void add_word(char *list, size_t cap, const char *word, size_t n)
{
	char w[64];
	const char *p = list;
	size_t used = strlen(list);

	if (n == 0 || n >= sizeof w)
		return;
	memcpy(w, word, n);
	w[n] = '\0';
	while ((p = strstr(p, w)) != NULL) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return;
		p += n;
	}
	if (used + n + 2 > cap)
		return;
	if (used > 0)
		list[used++] = ' ';
	memcpy(list + used, w, n + 1);
}

static int is_option_start(const char *s)
{
	return s[0] == '-' && (isalpha((unsigned char)s[1]) ||
	                       (s[1] == '-' && isalpha((unsigned char)s[2])));
}

static size_t option_len(const char *s)
{
	size_t n = 1 + (s[1] == '-');

	while (isalnum((unsigned char)s[n]) || s[n] == '-')
		n++;
	return n;
}

/* An argument placeholder after an option: "DIR", "N", "yes|no", "PATH=JSON". */
static int is_placeholder(const char *s)
{
	return isupper((unsigned char)s[0]) || strchr(s, '|') != NULL;
}

/* The options in [p, end) of a help line starting at `line`; with
 * `column`, all of them take a value when one does ("-o, --output DIR"). */
static void scan_options(const char *p, const char *line, const char *end, int column,
                         char *flags, char *valued, size_t cap)
{
	const char *found[8];
	size_t lens[8], n_found = 0, n, k, i;
	int any_valued = 0;

	for (; p < end; p++) {
		char arg[64];
		const char *a;
		int has_value;

		if (!is_option_start(p) || (p > line && strchr(" [(|", p[-1]) == NULL))
			continue;
		n = option_len(p);
		a = p + n;
		has_value = *a == ' ' || *a == '=';
		if (has_value)
			a++;
		for (k = 0; k < sizeof arg - 1 && a + k < end && strchr(" ]),", a[k]) == NULL; k++)
			arg[k] = a[k];
		arg[k] = '\0';
		has_value = has_value && k > 0 && is_placeholder(arg);
		if (column && n_found < 8) {
			found[n_found] = p;
			lens[n_found++] = n;
			any_valued |= has_value;
		} else {
			add_word(has_value ? valued : flags, cap, p, n);
		}
		p += n - 1;
	}
	for (i = 0; i < n_found; i++)
		add_word(any_valued ? valued : flags, cap, found[i], lens[i]);
}

/* The options of `text` (a --help text): every option in its usage lines
 * (from "usage:" to the first blank line) and in the first column of each
 * line that begins with an option.  Those followed by a placeholder go to
 * `valued`, the others to `flags`. */
static void scan_help(const char *text, char *flags, char *valued, size_t cap)
{
	const char *line = text, *end, *p, *col_end;
	int in_usage = 0;

	for (; *line != '\0'; line = *end != '\0' ? end + 1 : end) {
		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		if (strncmp(line, "usage:", 6) == 0)
			in_usage = 1;
		else if (line == end)
			in_usage = 0;
		for (p = line; p < end && *p == ' '; p++)
			;
		col_end = end;
		if (!in_usage) {
			if (p == end || !is_option_start(p))
				continue;
			col_end = strstr(p, "  ");
			if (col_end == NULL || col_end > end)
				col_end = end;
		}
		scan_options(p, line, col_end, !in_usage, flags, valued, cap);
	}
}

/* The options of the help text that c prints for argv, added to flags and
 * valued (cap bytes each). */
static void scan_command(const struct fs__cli_cmd *c, int argc, char **argv, char *flags,
                         char *valued, size_t cap)
{
	char *text = capture(c->main, argc, argv);

	if (text != NULL)
		scan_help(text, flags, valued, cap);
	free(text);
}

/* One command's case in the script. */
static void print_command(const struct fs__cli_cmd *c)
{
	char flags[2048] = "", valued[2048] = "", help_opt[] = "--help";
	char train[] = "--train", full[] = "full", name[32];
	char *argv[5], *text;

	snprintf(name, sizeof name, "%s", c->name);
	argv[0] = name;
	argv[1] = help_opt;
	argv[2] = NULL;
	scan_command(c, 2, argv, flags, valued, sizeof flags);
	/* `estimate --train` has a help text of its own. */
	if (strcmp(c->name, "estimate") == 0) {
		argv[1] = train;
		argv[2] = full;
		argv[3] = help_opt;
		argv[4] = NULL;
		scan_command(c, 4, argv, flags, valued, sizeof flags);
	}
	add_word(flags, sizeof flags, "--help", 6);
	/* The options completed after "-": all of them. */
	for (text = valued; *text != '\0'; text += strcspn(text, " ")) {
		text += strspn(text, " ");
		add_word(flags, sizeof flags, text, strcspn(text, " "));
	}
	printf("\t%s)\n\t\topts=\"%s\"\n\t\tvals=\"%s\"\n\t\tops=\"%s\" ;;\n",
	       c->name, flags, valued, c->operands);
}

static void print_bash(void)
{
	const struct fs__cli_cmd *c;
	char names[512] = "";

	for (c = fs__cli_commands(); c->name != NULL; c++)
		add_word(names, sizeof names, c->name, strlen(c->name));
	printf("# bash completion for fleetsim %s, printed by 'fleetsim completion bash'.\n"
	       "# Use: source <(fleetsim completion bash)\n"
	       "_fleetsim()\n{\n"
	       "\tlocal cur prev opts vals ops\n"
	       "\tcur=${COMP_WORDS[COMP_CWORD]}\n"
	       "\tprev=${COMP_WORDS[COMP_CWORD-1]}\n"
	       "\tCOMPREPLY=()\n"
	       "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	       "\t\tCOMPREPLY=( $(compgen -W \"%s help version --help --version\" -- \"$cur\") )\n"
	       "\t\treturn 0\n"
	       "\tfi\n"
	       "\tcase ${COMP_WORDS[1]} in\n"
	       "\thelp)\n"
	       "\t\t[ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=( $(compgen -W \"%s\" -- \"$cur\") )\n"
	       "\t\treturn 0 ;;\n",
	       FS_VERSION, names, names);
	for (c = fs__cli_commands(); c->name != NULL; c++)
		print_command(c);
	fputs("\t*) return 0 ;;\n"
	      "\tesac\n"
	      "\tcase \" $vals \" in\n"
	      "\t*\" $prev \"*)\n"
	      "\t\tcompopt -o filenames 2>/dev/null\n"
	      "\t\tCOMPREPLY=( $(compgen -f -- \"$cur\") )\n"
	      "\t\treturn 0 ;;\n"
	      "\tesac\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=( $(compgen -W \"$opts\" -- \"$cur\") )\n"
	      "\t\treturn 0\n"
	      "\tfi\n"
	      "\tcase $ops in\n"
	      "\tjson)\n"
	      "\t\tcompopt -o filenames 2>/dev/null\n"
	      "\t\tCOMPREPLY=( $(compgen -f -X '!*.json' -- \"$cur\") $(compgen -d -- \"$cur\") ) ;;\n"
	      "\tdir)\n"
	      "\t\tcompopt -o filenames 2>/dev/null\n"
	      "\t\tCOMPREPLY=( $(compgen -d -- \"$cur\") ) ;;\n"
	      "\tfile)\n"
	      "\t\tcompopt -o filenames 2>/dev/null\n"
	      "\t\tCOMPREPLY=( $(compgen -f -- \"$cur\") ) ;;\n"
	      "\t'') ;;\n"
	      "\t*) COMPREPLY=( $(compgen -W \"$ops\" -- \"$cur\") ) ;;\n"
	      "\tesac\n"
	      "\treturn 0\n"
	      "}\n"
	      "complete -F _fleetsim fleetsim\n", stdout);
}

int fs__cli_completion(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		fputs(completion_help, stdout);
		return FS_EXIT_OK;
	}
	if (argc != 2 || strcmp(argv[1], "bash") != 0)
		return fs__cli_usage_error("completion", "expected the shell name \"bash\"%s%s",
		                           argc > 1 ? ", found " : "",
		                           argc > 1 ? argv[1] : "");
	print_bash();
	return fflush(stdout) == 0 ? FS_EXIT_OK : FS_EXIT_RUNTIME;
}
