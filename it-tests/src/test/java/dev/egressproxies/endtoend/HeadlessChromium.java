package dev.egressproxies.endtoend;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Debian's {@code chromium} run headless as a separate process, one page load per run: the DOM
 * after the page's scripts ran, or a screenshot. Each run has its own throw-away profile and a
 * time limit past which the browser and its helper processes are killed.
 *
 * <p>Page time is virtual ({@code --virtual-time-budget}): Chromium runs the page's timers as fast
 * as they come, waiting for network loads, until the budget of page time is spent, then dumps or
 * shoots. A page that refreshes every few seconds thus renders at least once, however busy the
 * machine is.
 */
public final class HeadlessChromium {
    /** How long one run may take on a busy machine before it counts as hung. */
    public static final Duration DEFAULT_LIMIT = Duration.ofSeconds(90);

    private static final String INSTALL_HINT = "install Debian's chromium package: run "
            + "scripts/install-test-dependencies.sh as root, or apt-get install chromium";

    private final Path executable;
    private final Duration limit;

    private HeadlessChromium(Path executable, Duration limit) {
        this.executable = executable;
        this.limit = limit;
    }

    /**
     * Finds {@code chromium} on the {@code PATH}.
     *
     * @throws IllegalStateException naming the package to install when it is missing
     */
    public static HeadlessChromium find() {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String folder : path.split(File.pathSeparator)) {
            if (folder.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(folder, "chromium");
            if (Files.isExecutable(candidate)) {
                return new HeadlessChromium(candidate, DEFAULT_LIMIT);
            }
        }
        throw new IllegalStateException("chromium is missing (not on PATH " + path + "): " + INSTALL_HINT);
    }

    /** Returns a copy whose runs may take up to {@code limit} each. */
    public HeadlessChromium withLimit(Duration limit) {
        return new HeadlessChromium(executable, limit);
    }

    /**
     * Loads {@code url} and returns the document's HTML once {@code pageTime} of page time has passed,
     * with what the page logged to its console.
     *
     * @throws AssertionError when chromium fails or exceeds the limit, with its standard error
     */
    public Page dumpDom(URI url, Duration pageTime) {
        return run(url, pageTime, List.of("--dump-dom"));
    }

    /**
     * One loaded page.
     *
     * @param dom     the document's HTML after its scripts ran
     * @param console the page's console messages, including uncaught errors and blocked content
     *                (a Content-Security-Policy violation), one per item
     */
    public record Page(String dom, List<String> console) {
    }

    /**
     * Loads {@code url} in a {@code width} x {@code height} window and writes a PNG of the viewport to
     * {@code file} once {@code pageTime} of page time has passed.
     *
     * @throws AssertionError when chromium fails, exceeds the limit or writes no PNG
     */
    public void screenshot(URI url, Duration pageTime, Path file, int width, int height) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Page log = run(url, pageTime, List.of("--screenshot=" + file.toAbsolutePath(),
                "--window-size=" + width + "," + height, "--hide-scrollbars"));
        try {
            byte[] head = Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
            if (head.length < 8 || head[1] != 'P' || head[2] != 'N' || head[3] != 'G') {
                throw new AssertionError("chromium wrote no PNG to " + file + "; the page's console:\n"
                        + String.join("\n", log.console()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs one load; returns standard output and the console lines of standard error. */
    private Page run(URI url, Duration pageTime, List<String> action) {
        Path work = null;
        Process process = null;
        try {
            work = Files.createTempDirectory("headless-chromium");
            Path out = work.resolve("out.txt");
            Path err = work.resolve("err.txt");
            List<String> command = new ArrayList<>(List.of(executable.toString(),
                    "--headless", "--no-sandbox", "--disable-gpu",
                    // /dev/shm is small in containers; a profile of its own keeps runs apart.
                    "--disable-dev-shm-usage", "--user-data-dir=" + work.resolve("profile"),
                    "--no-first-run", "--disable-extensions", "--disable-background-networking",
                    "--disable-sync", "--mute-audio",
                    // The page's console goes to standard error, read back as Page.console.
                    "--enable-logging=stderr", "--log-level=0",
                    "--virtual-time-budget=" + pageTime.toMillis()));
            command.addAll(action);
            command.add(url.toString());
            process = new ProcessBuilder(command).directory(work.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(process);
                throw new AssertionError("chromium did not finish loading " + url + " within " + limit
                        + "; killed it. Its standard error:\n" + tail(err));
            }
            if (process.exitValue() != 0) {
                throw new AssertionError("chromium exited " + process.exitValue() + " loading " + url
                        + "; its standard error:\n" + tail(err));
            }
            List<String> console = Files.readAllLines(err, StandardCharsets.ISO_8859_1).stream()
                    .filter(line -> line.contains(":CONSOLE")).map(line -> line.replaceFirst("^\\[[^]]*\\] ?", ""))
                    .toList();
            return new Page(Files.readString(out, StandardCharsets.UTF_8), console);
        } catch (IOException e) {
            if (process == null) {
                throw new IllegalStateException("chromium at " + executable + " does not start (" + e.getMessage()
                        + "): " + INSTALL_HINT, e);
            }
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill(process);
            throw new AssertionError("interrupted while chromium loaded " + url, e);
        } finally {
            if (process != null && process.isAlive()) {
                kill(process);
            }
            deleteQuietly(work);
        }
    }

    /** Kills the browser's helpers (renderer, GPU, zygote) first, so none outlives it as an orphan. */
    private static void kill(Process process) {
        List<ProcessHandle> helpers = process.descendants().toList();
        helpers.forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static void deleteQuietly(Path folder) {
        if (folder == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(folder)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // A helper still writing into the profile at the very end; the temp folder is the OS's.
        }
    }
}
