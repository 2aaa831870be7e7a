/*
 * test_report_browser.c — report.html in a real browser: `fleetsim run
 * scenarios/quickstart.json -r 2` and `fleetsim report` into a temporary
 * directory, then headless Chromium loads a copy of report.html that sits
 * alone in an empty directory (so a reference to plots/ or any other file
 * breaks: the report must be self-contained) and the test checks that every
 * <img> decoded and every outermost inline <svg> has a nonzero box, and
 * that a full-page screenshot is written (kept as tests/out/report_browser.png).
 *
 * How the image check works: a harness page beside the copy holds the copy
 * in a 1280 x 4000 iframe and, on the iframe's load event, makes lazy images
 * eager, waits for every pending image to load or fail, and writes
 * "images=OK/N svgs=OK/N bad=[...]" into its own <body data-fs-result>.
 * Chromium runs with --allow-file-access-from-files (so the harness may read
 * the file:// iframe's document), --virtual-time-budget and --dump-dom; the
 * test parses the marker from the dumped DOM.  The report itself is never
 * edited, so its own Content-Security-Policy still applies to its images.
 *
 * Each report kind (run, sweep, spot strategies, budget) is rendered the
 * same way and kept whole, 1280 px wide, as tests/out/report_<kind>.png;
 * `fleetsim report --pdf` must print a PDF, and without Chromium in $PATH
 * fail first with exit 1.
 *
 * Needs Chromium (Debian: chromium; .ci/run installs it) and `fleetsim
 * report`; skips, passing, with a message when either is absent.  Every
 * browser start runs under timeout(1), 60 s, killed 5 s later, and is tried
 * once more if it timed out (a hang on exit, now and then).  The harness
 * self-test (a page with one good PNG, one inline SVG and one missing
 * image) needs only Chromium and proves the check can fail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util_test.h"

#define SCENARIO "scenarios/quickstart.json"
#define SHOT_KEEP_DIR "tests/out"
#define SHOT_KEEP SHOT_KEEP_DIR "/report_browser.png"
#define SHOT_MIN_BYTES 10240

/* A 1 x 1 red PNG, base64. */
#define PNG_1X1 "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"

/* The harness page: loads report.html (beside it) in an iframe and writes
 * the image census into body[data-fs-result] once, when every image has
 * settled or after 4 s of (virtual) time. */
static const char HARNESS_HTML[] =
	"<!doctype html><html><head><meta charset=\"utf-8\"></head>\n"
	"<body style=\"margin:0\">\n"
	"<iframe id=\"fs-report\" src=\"report.html\"\n"
	"        style=\"width:1280px;height:4000px;border:0\"></iframe>\n"
	"<script>\n"
	"(function () {\n"
	"  var done = false;\n"
	"  function put(msg) {\n"
	"    if (done) return;\n"
	"    done = true;\n"
	"    document.body.setAttribute('data-fs-result', msg);\n"
	"  }\n"
	"  document.getElementById('fs-report').addEventListener('load', function () {\n"
	"    var d;\n"
	"    try { d = this.contentDocument; } catch (e) { put('error: ' + e); return; }\n"
	"    if (!d) { put('error: no access to the report document'); return; }\n"
	"    var imgs = Array.prototype.slice.call(d.images);\n"
	"    imgs.forEach(function (im) { im.loading = 'eager'; });\n"
	"    function census() {\n"
	"      var ok = 0, bad = [];\n"
	"      imgs.forEach(function (im, i) {\n"
	"        if (im.complete && im.naturalWidth > 0) ok++;\n"
	"        else bad.push('img ' + i + ': ' + (im.getAttribute('src') || '').slice(0, 60));\n"
	"      });\n"
	"      var svgs = Array.prototype.filter.call(d.querySelectorAll('svg'), function (s) {\n"
	"        return !s.parentElement || !s.parentElement.closest('svg');\n"
	"      });\n"
	"      var sok = 0;\n"
	"      svgs.forEach(function (s, i) {\n"
	"        var r = s.getBoundingClientRect();\n"
	"        if (r.width > 0 && r.height > 0) sok++;\n"
	"        else bad.push('svg ' + i + ': empty box');\n"
	"      });\n"
	"      put('images=' + ok + '/' + imgs.length + ' svgs=' + sok + '/' + svgs.length +\n"
	"          ' height=' + d.documentElement.scrollHeight + ' bad=' + JSON.stringify(bad));\n"
	"    }\n"
	"    var left = imgs.filter(function (im) { return !im.complete; }).length;\n"
	"    if (left === 0) { census(); return; }\n"
	"    imgs.forEach(function (im) {\n"
	"      if (im.complete) return;\n"
	"      function one() { if (--left === 0) census(); }\n"
	"      im.addEventListener('load', one);\n"
	"      im.addEventListener('error', one);\n"
	"    });\n"
	"    setTimeout(census, 4000);\n"
	"  });\n"
	"})();\n"
	"</script>\n"
	"</body></html>\n";

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The Chromium binary, or NULL; skips the calling test when there is none. */
static const char *need_chromium(void)
{
	static const char *const names[] = { "chromium", "chromium-browser",
	                                     "google-chrome", NULL };
	size_t i;

	for (i = 0; names[i] != NULL; i++)
		if (fs_test_have_cmd(names[i]))
			return names[i];
	printf("skipped: chromium not found (apt-get install chromium, "
	       "or scripts/deps.sh chromium)\n");
	skip();
	return NULL;
}

/* Run Chromium headless on file://URL_PATH with the extra flags (a
 * NULL-terminated list of at most 8), under timeout(1), with a fresh profile
 * directory.  Returns the captured run; the caller frees it. */
static struct fs_test_run run_chromium_once(const char *chromium, const char *url_path,
                                            const char *const *extra, int height_px)
{
	char *profile = fs_test_tmpdir();
	char profile_flag[512], url[4096], size_flag[64];
	const char *argv[40];
	struct fs_test_run r;
	size_t n = 0, i;

	snprintf(profile_flag, sizeof profile_flag, "--user-data-dir=%s", profile);
	snprintf(url, sizeof url, "file://%s", url_path);
	if (fs_test_have_cmd("timeout")) {
		argv[n++] = "timeout";
		argv[n++] = "-k";
		argv[n++] = "5";
		argv[n++] = "60";
	}
	argv[n++] = chromium;
	argv[n++] = "--headless";
	argv[n++] = "--no-sandbox";
	argv[n++] = "--disable-gpu";
	argv[n++] = "--disable-quic";
	argv[n++] = "--no-first-run";
	argv[n++] = "--disable-background-networking";
	argv[n++] = "--disable-component-update";
	argv[n++] = "--disable-sync";
	argv[n++] = "--disable-dev-shm-usage";
	argv[n++] = "--hide-scrollbars";
	snprintf(size_flag, sizeof size_flag, "--window-size=1280,%d", height_px);
	argv[n++] = size_flag;
	argv[n++] = "--run-all-compositor-stages-before-draw";
	argv[n++] = "--virtual-time-budget=10000";
	argv[n++] = profile_flag;
	for (i = 0; extra[i] != NULL && i < 8; i++)
		argv[n++] = extra[i];
	argv[n++] = url;
	argv[n] = NULL;
	r = fs_test_run_cmd(argv);
	fs_test_tmpdir_free(profile);
	return r;
}

/* run_chromium_once, tried again once where timeout(1) stopped it (exit 124
 * or 137): headless Chromium now and then hangs on its way out after doing
 * its work, which says nothing of the page. */
static struct fs_test_run run_chromium_h(const char *chromium, const char *url_path,
                                         const char *const *extra, int height_px)
{
	struct fs_test_run r = run_chromium_once(chromium, url_path, extra, height_px);

	if (r.exit_code == 124 || r.exit_code == 137) {
		printf("chromium timed out (exit %d); trying once more\n", r.exit_code);
		fs_test_run_free(&r);
		r = run_chromium_once(chromium, url_path, extra, height_px);
	}
	return r;
}

static struct fs_test_run run_chromium(const char *chromium, const char *url_path,
                                       const char *const *extra)
{
	return run_chromium_h(chromium, url_path, extra, 4000);
}

/* The image census of DIR/report.html (DIR holds the harness page too):
 * fills the four counts and returns the marker text (heap) for messages. */
static char *image_census(const char *chromium, const char *dir, int *img_ok,
                          int *img_n, int *svg_ok, int *svg_n)
{
	const char *extra[] = { "--allow-file-access-from-files", "--dump-dom", NULL };
	char *harness = fs_test_path(dir, "harness.html");
	struct fs_test_run r;
	const char *mark, *end;
	char *marker;

	write_file(harness, HARNESS_HTML, sizeof HARNESS_HTML - 1);
	r = run_chromium(chromium, harness, extra);
	mark = r.out != NULL ? strstr(r.out, "data-fs-result=\"") : NULL;
	if (r.exit_code != 0 || mark == NULL)
		print_error("chromium --dump-dom: exit %d (124/137: timed out), no "
		            "data-fs-result marker\nstdout (head):\n%.2000s\nstderr (tail):\n%s\n",
		            r.exit_code, r.out != NULL ? r.out : "(none)",
		            r.err != NULL && strlen(r.err) > 3000 ?
		                    r.err + strlen(r.err) - 3000 : r.err != NULL ? r.err : "(none)");
	assert_int_equal(r.exit_code, 0);
	assert_non_null(mark);
	mark += strlen("data-fs-result=\"");
	end = strchr(mark, '"');
	assert_non_null(end);
	marker = strndup(mark, (size_t)(end - mark));
	assert_non_null(marker);
	if (sscanf(marker, "images=%d/%d svgs=%d/%d", img_ok, img_n, svg_ok, svg_n) != 4) {
		print_error("unexpected marker: %s\n", marker);
		fail();
	}
	fs_test_run_free(&r);
	free(harness);
	return marker;
}

/* Screenshot of DIR/report.html, 1280 px wide and height_px high, into
 * DIR/screenshot.png; returns its path (heap). */
static char *screenshot_h(const char *chromium, const char *dir, int height_px)
{
	char *shot = fs_test_path(dir, "screenshot.png");
	char *page = fs_test_path(dir, "report.html");
	char flag[4200];
	const char *extra[] = { flag, NULL };
	struct fs_test_run r;

	snprintf(flag, sizeof flag, "--screenshot=%s", shot);
	r = run_chromium_h(chromium, page, extra, height_px);
	if (r.exit_code != 0 || file_size(shot) < SHOT_MIN_BYTES)
		print_error("chromium --screenshot: exit %d, %s is %ld bytes (want > %d)\n"
		            "stderr:\n%.3000s\n", r.exit_code, shot, file_size(shot),
		            SHOT_MIN_BYTES, r.err != NULL ? r.err : "(none)");
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
	free(page);
	return shot;
}

/* Full-page screenshot (the first 4000 px) of DIR/report.html. */
static char *screenshot(const char *chromium, const char *dir)
{
	return screenshot_h(chromium, dir, 4000);
}

/* Copy SRC to DST byte for byte. */
static void copy_file(const char *src, const char *dst)
{
	size_t len;
	char *text = fs_test_read_file(src, &len);

	if (text == NULL)
		print_error("cannot read %s\n", src);
	assert_non_null(text);
	write_file(dst, text, len);
	free(text);
}

static void test_report_browser_harness_flags_a_missing_image(void **state)
{
	const char *chromium = need_chromium();
	char *dir = fs_test_tmpdir();
	char *page = fs_test_path(dir, "report.html");
	static const char page_html[] =
		"<!doctype html><html><head><meta http-equiv=\"Content-Security-Policy\" "
		"content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">"
		"</head><body><h1>harness self-test</h1>\n"
		"<p><img alt=\"good\" width=\"100\" src=\"data:image/png;base64," PNG_1X1 "\"></p>\n"
		"<svg width=\"200\" height=\"100\"><rect width=\"200\" height=\"100\" fill=\"blue\"/>"
		"<svg><circle r=\"3\"/></svg></svg>\n"
		"<p><img alt=\"missing\" src=\"plots/missing.png\"></p>\n"
		"<p style=\"margin-top:9000px\"><img alt=\"lazy\" loading=\"lazy\" "
		"src=\"data:image/png;base64," PNG_1X1 "\"></p>\n"
		"</body></html>\n";
	int img_ok, img_n, svg_ok, svg_n;
	char *marker;

	(void)state;
	write_file(page, page_html, sizeof page_html - 1);
	marker = image_census(chromium, dir, &img_ok, &img_n, &svg_ok, &svg_n);
	printf("harness self-test: %s\n", marker);
	assert_int_equal(img_n, 3);     /* good, missing, lazy */
	assert_int_equal(img_ok, 2);    /* the missing one is caught */
	assert_int_equal(svg_n, 1);     /* the nested <svg> is not counted */
	assert_int_equal(svg_ok, 1);
	assert_non_null(strstr(marker, "plots/missing.png"));
	free(marker);
	free(page);
	fs_test_tmpdir_free(dir);
}

static void test_report_browser_every_image_loads_and_screenshot_is_written(void **state)
{
	const char *chromium;
	char *run_dir, *alone, *html, *alone_html, *marker, *shot;
	int img_ok, img_n, svg_ok, svg_n;

	(void)state;
	chromium = need_chromium();
	fs_test_need_report();
	run_dir = fs_test_tmpdir();
	alone = fs_test_tmpdir();
	const char *run_args[] = { "run", SCENARIO, "-r", "2", "-o", run_dir, "-q", NULL };
	const char *report_args[] = { "report", run_dir, NULL };
	fs_test_fleetsim_ok(run_args);
	fs_test_fleetsim_ok(report_args);

	/* report.html alone in an empty directory: self-contained or broken. */
	html = fs_test_path(run_dir, "report.html");
	alone_html = fs_test_path(alone, "report.html");
	copy_file(html, alone_html);

	marker = image_census(chromium, alone, &img_ok, &img_n, &svg_ok, &svg_n);
	printf("report.html in chromium: %s\n", marker);
	if (img_n + svg_n == 0)
		print_error("report.html has no <img> and no inline <svg>\n");
	assert_true(img_n + svg_n > 0);
	if (img_ok != img_n || svg_ok != svg_n)
		print_error("not every image loaded: %s\n", marker);
	assert_int_equal(img_ok, img_n);
	assert_int_equal(svg_ok, svg_n);

	shot = screenshot(chromium, alone);
	assert_true(file_size(shot) > SHOT_MIN_BYTES);
	if (mkdir(SHOT_KEEP_DIR, 0755) == 0 || file_size(SHOT_KEEP_DIR) >= 0) {
		copy_file(shot, SHOT_KEEP);
		printf("screenshot: %s (%ld bytes)\n", SHOT_KEEP, file_size(SHOT_KEEP));
	}

	free(shot);
	free(marker);
	free(alone_html);
	free(html);
	fs_test_tmpdir_free(alone);
	fs_test_tmpdir_free(run_dir);
}


/* Run fleetsim with args; fail with its stderr unless it exits 0. */
static void fleetsim_ok(const char *const *args)
{
	struct fs_test_run r = fs_test_run_fleetsim(args);

	if (r.exit_code != 0)
		print_error("fleetsim %s: exit %d\n%s\n", args[0], r.exit_code, r.err);
	assert_int_equal(r.exit_code, 0);
	fs_test_run_free(&r);
}

/* Make one report of the given kind in dir. */
static void make_kind(const char *kind, const char *dir)
{
	const char *report_args[] = { "report", dir, "-q", NULL };

	if (strcmp(kind, "run") == 0) {
		const char *a[] = { "run", SCENARIO, "-r", "2", "-o", dir, "-q", NULL };

		fleetsim_ok(a);
	} else if (strcmp(kind, "sweep") == 0) {
		/* 3 GPUs x 2 plans x 3 counts: colours and markers to read. */
		const char *a[] = { "sweep", "tests/data/report_sweep_gpus.json", "-o", dir, "-q",
		                    NULL };

		fleetsim_ok(a);
	} else if (strcmp(kind, "spot-strategies") == 0) {
		const char *a[] = { "run", "scenarios/spot-strategies.json", "-r", "2", "--set",
		                    "simulation.horizon=\"1h\"", "-o", dir, "-q", NULL };

		fleetsim_ok(a);
	} else {
		const char *a[] = { "budget", "scenarios/budget-quarter.json", "-o", dir, "-q",
		                    NULL };

		fleetsim_ok(a);
	}
	fleetsim_ok(report_args);
}

/* Issue 18: every report kind renders in Chromium at 1280 px with every
 * image loaded; the whole page is kept as tests/out/report_<kind>.png (the
 * source of docs/img/report-<kind>.png, which docs/REPORT.md shows). */
static void test_report_browser_each_report_kind_renders(void **state)
{
	static const char *const kinds[] = { "run", "sweep", "spot-strategies", "budget" };
	/* images at least: run and sweep 5 plots, variants 7, a budget none */
	static const int min_images[] = { 5, 5, 7, 0 };
	const char *chromium;
	size_t k;

	(void)state;
	chromium = need_chromium();
	fs_test_need_report();
	for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		char *dir = fs_test_tmpdir(), *alone = fs_test_tmpdir();
		char *html = fs_test_path(dir, "report.html"), *alone_html = fs_test_path(alone, "report.html");
		char *marker, *shot, keep[256];
		const char *h;
		int img_ok, img_n, svg_ok, svg_n, height;

		make_kind(kinds[k], dir);
		copy_file(html, alone_html);
		marker = image_census(chromium, alone, &img_ok, &img_n, &svg_ok, &svg_n);
		printf("report %s in chromium: %.200s\n", kinds[k], marker);
		if (img_ok != img_n || img_n < min_images[k])
			print_error("%s: %s\n", kinds[k], marker);
		assert_int_equal(img_ok, img_n);
		assert_true(img_n >= min_images[k]);
		assert_int_equal(svg_ok, svg_n);
		h = strstr(marker, "height=");
		assert_non_null(h);
		height = atoi(h + 7);
		assert_true(height > 200);
		shot = screenshot_h(chromium, alone, height < 16000 ? height : 16000);
		if (mkdir(SHOT_KEEP_DIR, 0755) == 0 || file_size(SHOT_KEEP_DIR) >= 0) {
			snprintf(keep, sizeof keep, SHOT_KEEP_DIR "/report_%s.png", kinds[k]);
			copy_file(shot, keep);
			printf("screenshot: %s (%ld bytes, 1280 x %d)\n", keep, file_size(keep), height);
		}
		free(shot);
		free(marker);
		free(alone_html);
		free(html);
		fs_test_tmpdir_free(alone);
		fs_test_tmpdir_free(dir);
	}
}

/* `fleetsim report --pdf` prints the report with headless Chromium. */
static void test_report_pdf_is_printed(void **state)
{
	const char *chromium;
	char *dir, *pdf, *text;
	size_t len;

	(void)state;
	chromium = need_chromium();
	(void)chromium;
	fs_test_need_report();
	dir = fs_test_tmpdir();
	{
		const char *a[] = { "run", SCENARIO, "-r", "2", "-o", dir, "-q", NULL };
		const char *b[] = { "report", dir, "--pdf", NULL };
		struct fs_test_run r;

		fleetsim_ok(a);
		r = fs_test_run_fleetsim(b);
		if (r.exit_code != 0)
			print_error("fleetsim report --pdf: exit %d\n%s\n", r.exit_code, r.err);
		assert_int_equal(r.exit_code, 0);
		assert_non_null(strstr(r.out, "report.pdf"));
		fs_test_run_free(&r);
	}
	pdf = fs_test_path(dir, "report.pdf");
	text = fs_test_read_file(pdf, &len);
	assert_non_null(text);
	assert_true(len > SHOT_MIN_BYTES);
	assert_memory_equal(text, "%PDF-", 5);
	free(text);
	free(pdf);
	fs_test_tmpdir_free(dir);
}

/* Without Chromium in $PATH, --pdf fails first: exit 1, a message that
 * says what to install, and nothing written.  Needs no browser. */
static void test_report_pdf_without_chromium_is_exit_1(void **state)
{
	char *dir, *empty, *html, *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	struct fs_test_run r;

	(void)state;
	fs_test_need_report();
	dir = fs_test_tmpdir();
	empty = fs_test_tmpdir();
	{
		const char *a[] = { "run", SCENARIO, "-r", "2", "-o", dir, "-q", NULL };

		fleetsim_ok(a);
	}
	setenv("PATH", empty, 1);
	{
		const char *b[] = { "report", dir, "--pdf", NULL };

		r = fs_test_run_fleetsim(b);
	}
	if (old != NULL)
		setenv("PATH", old, 1);
	else
		unsetenv("PATH");
	assert_int_equal(r.exit_code, 1);
	assert_has(r.err, "--pdf needs headless Chromium", "apt-get install chromium");
	fs_test_run_free(&r);
	html = fs_test_path(dir, "report.html");
	assert_true(file_size(html) < 0);
	free(html);
	free(old);
	fs_test_tmpdir_free(empty);
	fs_test_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_browser_harness_flags_a_missing_image),
		cmocka_unit_test(test_report_browser_every_image_loads_and_screenshot_is_written),
		cmocka_unit_test(test_report_browser_each_report_kind_renders),
		cmocka_unit_test(test_report_pdf_is_printed),
		cmocka_unit_test(test_report_pdf_without_chromium_is_exit_1),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
