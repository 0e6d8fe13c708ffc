package dev.egressproxies.kvm.common.image;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.kvm.common.host.HostShell;
import dev.egressproxies.kvm.common.host.HostShell.CommandResult;
import dev.egressproxies.kvm.common.host.HostShell.CommandTimeoutException;
import dev.egressproxies.kvm.common.image.HostFetchScript.Report;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import dev.egressproxies.kvm.common.image.ImageFetcher.FetchResult;
import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Has a hypervisor download an image into a file of its own ({@code fetch: host}): its curl (or
 * wget) fetches the published file, its xz, gzip, bzip2 or zstd decompresses it, and its sha256sum
 * and wc check it, all in one script run through an SSH exec channel ({@link HostFetchScript});
 * nothing of the image crosses the machine that runs this code. The checks and their failures are
 * the client-side pipeline's ({@link ImageFetcher}): HTTP status and headers classified alike,
 * length and pinned sha256 checked, stalls and time limits alike, each message naming the host.
 */
public final class HostImageFetcher {
    private static final Logger LOG = LoggerFactory.getLogger(HostImageFetcher.class);
    /** The report is a few dozen lines; headers and messages are cut by the script too. */
    private static final int OUTPUT_LIMIT = 64 * 1024;
    /** Time for the script to report after curl's own limit ended the download. */
    private static final Duration REPORT_GRACE = Duration.ofSeconds(15);
    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/[0-9.]+ ([0-9]{3}).*");
    private static final Pattern HEADER_LINE = Pattern.compile("([A-Za-z0-9-]+):\\s*(.*)");

    private final TransferBudget budget;
    private final Duration idleLimit;

    /** A fetcher whose downloads end within {@code budget} and whose servers may stay silent for {@code idleLimit}. */
    public HostImageFetcher(TransferBudget budget, Duration idleLimit) {
        this.budget = budget;
        this.idleLimit = idleLimit;
    }

    /**
     * Downloads {@code source} on the host into {@code targetPath}, an existing file the login may
     * write (a fresh volume's); returns what was fetched once its length and any pinned sha256 were
     * found right. Throws {@link ImageFetchException} as the client-side fetch does, naming {@code host}.
     */
    public FetchResult fetch(HostShell shell, String host, ImageSource source, String targetPath, Deadline deadline) {
        FetchAttempt attempt = FetchAttempt.transfer(source.url(), deadline, budget, idleLimit);
        requireSupported(source, attempt, host);
        long started = System.nanoTime();
        Duration limit = attempt.remaining();
        if (limit.isZero()) {
            throw attempt.timeUp("before the download on host '" + host + "' started", null);
        }
        String script = HostFetchScript.fetch(source.compression(), targetPath, seconds(idleLimit), seconds(limit));
        LOG.debug("host {}: downloading {} into {} (idle limit {}, at most {})", host, attempt.url(), targetPath,
                FetchAttempt.text(idleLimit), FetchAttempt.text(limit));
        Report report = run(shell, host, attempt, script, limit);
        failIfSetUpFailed(report, attempt, host);
        // curl or wget fail to write when what reads from them ended first: a decompressor or the file.
        boolean readerEnded = report.status("fetch").filter(status -> status == (report.wget() ? 3 : 23))
                .isPresent();
        long length = length(report, attempt, host, readerEnded);
        if (readerEnded && report.status("unpack").filter(status -> status != 0).isPresent()) {
            throw notAsDeclared(source, report, attempt, host);
        }
        if (readerEnded) {
            throw writeFailed(targetPath, attempt, host);
        }
        long published = number(report, "published-bytes");
        String sha256 = report.value("sha256").orElse("");
        if (published < length) {
            throw onHost(attempt.transientFailure(Reason.BODY_BROKEN, "the server sent " + published + " of " + length
                    + " bytes of the image from " + attempt.url() + " and ended the response; retry", null), host);
        }
        if (published > length) {
            throw onHost(attempt.permanent(Reason.BODY_BROKEN, "the server sent more bytes of the image from "
                    + attempt.url() + " than the " + length + " its Content-Length announced; fix the server", null),
                    host);
        }
        if (!sha256.matches("[0-9a-f]{64}")) {
            throw onHost(attempt.transientFailure(Reason.BODY_BROKEN, "sha256sum reported no digest of the "
                    + published + " bytes downloaded from " + attempt.url() + messages(report, attempt)
                    + "; retry", null), host);
        }
        if (source.sha256().isPresent() && !source.sha256().get().equals(sha256)) {
            throw onHost(attempt.permanent(Reason.DIGEST_MISMATCH, "the image from " + attempt.url()
                    + " has sha256 " + sha256 + ", not the configured " + source.sha256().get() + "; if the image"
                    + " was replaced on purpose, configure its new sha256 (under a new image name, so hosts that"
                    + " cached the old one are not mixed up), otherwise fix the file on the server", null), host);
        }
        if (report.status("unpack").filter(status -> status != 0).isPresent()) {
            throw notAsDeclared(source, report, attempt, host);
        }
        if (report.status("write").orElse(-1) != 0) {
            throw writeFailed(targetPath, attempt, host);
        }
        long imageBytes = number(report, "image-bytes");
        LOG.debug("host {}: fetched {} bytes from {} ({} as image) in {} ms", host, published, attempt.url(),
                imageBytes, (System.nanoTime() - started) / 1_000_000);
        return new FetchResult(published, sha256, imageBytes);
    }

    private static ImageFetchException notAsDeclared(ImageSource source, Report report, FetchAttempt attempt,
                                                     String host) {
        return onHost(attempt.permanent(Reason.CONTENT_INVALID, "the image from " + attempt.url() + " is declared "
                + source.packaging() + ", but " + HostFetchScript.decompressor(source.compression()).orElse("")
                + " could not decompress it" + text(report.unpackMessages(), attempt) + "; fix the image's compression"
                + " setting, or the file on the server", null), host);
    }

    private static ImageFetchException writeFailed(String targetPath, FetchAttempt attempt, String host) {
        return onHost(attempt.transientFailure(Reason.BODY_BROKEN, "writing the image into " + targetPath
                + " failed (is the pool's file system full?); free space in the pool, then retry", null), host);
    }

    /**
     * The published file's length as the host sees it: a HEAD request from the host, or a GET cut
     * after its first byte when HEAD cannot tell; failures are classified as for a fetch.
     */
    public long publishedBytes(HostShell shell, String host, ImageSource source, Deadline deadline) {
        FetchAttempt attempt = FetchAttempt.probe(source.url(), deadline, idleLimit);
        Report head = probe(shell, host, attempt, true);
        int status = statusOf(head).orElse(0);
        boolean refused = status == 403 || status == 405 || status == 501;
        if (refused || status / 100 == 2 && headers(head).firstValue("Content-Length").isEmpty()) {
            LOG.debug("host {}: HEAD of {} answered {} without a length, asking with a GET", host, attempt.url(),
                    status);
            // The GET is cut after its first byte, so curl's or wget's failure to write is expected.
            return length(probe(shell, host, attempt, false), attempt, host, true);
        }
        return length(head, attempt, host, false);
    }

    /** The commands the host needs to fetch {@code source}: sh and its helpers, sha256sum, the decompressor. */
    public static List<String> requiredTools(ImageSource source) {
        List<String> tools = new ArrayList<>(HostFetchScript.commonTools());
        HostFetchScript.decompressor(source.compression()).ifPresent(tools::add);
        return tools;
    }

    /**
     * Where each of {@code tools} (and curl and wget) is on the host, empty when missing, and
     * whether {@code folder}, when given, is a folder the login may write to; for {@code check}.
     */
    public static HostTools lookUpTools(HostShell shell, List<String> tools, Optional<String> folder, Duration timeout)
            throws IOException {
        List<String> all = new ArrayList<>(tools);
        all.addAll(List.of("curl", "wget"));
        CommandResult result = shell.run(HostFetchScript.command(HostFetchScript.tools(all, folder)), new byte[0],
                timeout, OUTPUT_LIMIT);
        Map<String, Optional<String>> found = new LinkedHashMap<>();
        Optional<Boolean> writable = Optional.empty();
        for (String line : result.out().split("\n")) {
            String[] words = line.strip().split(" ", 3);
            if (words.length >= 3 && (HostFetchScript.PREFIX.strip()).equals(words[0])) {
                switch (words[1]) {
                    case "found" -> {
                        String[] toolAndPath = words[2].split(" ", 2);
                        found.put(toolAndPath[0], Optional.of(toolAndPath.length > 1 ? toolAndPath[1] : ""));
                    }
                    case "missing" -> found.put(words[2], Optional.empty());
                    case "folder" -> writable = Optional.of(words[2].equals("writable"));
                    default -> {
                    }
                }
            }
        }
        if (!found.keySet().containsAll(all)) {
            throw new IOException("the tool lookup on " + shell.destination() + " ended with exit status "
                    + result.exitStatus() + " before reporting every tool: " + result.err().strip());
        }
        return new HostTools(found, writable);
    }

    /** What {@link #lookUpTools} found: each tool's path, or empty; the folder's writability, when asked. */
    public record HostTools(Map<String, Optional<String>> tools, Optional<Boolean> folderWritable) {
        /** The tools that are missing, curl and wget aside (one of the two suffices). */
        public List<String> missing() {
            return tools.entrySet().stream().filter(tool -> tool.getValue().isEmpty())
                    .map(Map.Entry::getKey).filter(tool -> !tool.equals("curl") && !tool.equals("wget")).toList();
        }

        /** The download tool the fetch would use: curl when there, else wget. */
        public Optional<String> downloader() {
            return tools.getOrDefault("curl", Optional.empty()).map(path -> "curl")
                    .or(() -> tools.getOrDefault("wget", Optional.empty()).map(path -> "wget"));
        }
    }

    private Report probe(HostShell shell, String host, FetchAttempt attempt, boolean head) {
        Duration limit = attempt.remaining();
        if (limit.isZero()) {
            throw attempt.timeUp("before host '" + host + "' was asked for the image's size", null);
        }
        Report report = run(shell, host, attempt, HostFetchScript.probe(head, seconds(idleLimit), seconds(limit)),
                limit);
        failIfSetUpFailed(report, attempt, host);
        return report;
    }

    private static void requireSupported(ImageSource source, FetchAttempt attempt, String host) {
        if (source.archive() == Archive.TAR) {
            throw onHost(attempt.permanent(Reason.CONTENT_INVALID, "the image from " + attempt.url() + " is "
                    + source.packaging() + "; a host-side fetch does not unpack archives: set fetch: client for this"
                    + " image, or publish the disk image itself", null), host);
        }
        String url = source.url().toString();
        if (url.indexOf('"') >= 0 || url.indexOf('\\') >= 0 || url.indexOf('\n') >= 0 || url.indexOf('\r') >= 0) {
            // A parsed URI holds none of them; the config file and input file could not carry them.
            throw onHost(attempt.permanent(Reason.UNUSABLE_RESPONSE, "the image URL holds a character a host-side"
                    + " fetch cannot pass on (a quote, backslash or line break); percent-encode it", null), host);
        }
    }

    /** Runs a script with the URL, without user information (never sent, as on the client), on its stdin. */
    private static Report run(HostShell shell, String host, FetchAttempt attempt, String script, Duration limit) {
        byte[] input = (FetchAttempt.withoutUserInformation(attempt.source()) + "\n").getBytes(StandardCharsets.UTF_8);
        CommandResult result;
        try {
            result = shell.run(HostFetchScript.command(script), input, limit.plus(REPORT_GRACE), OUTPUT_LIMIT);
        } catch (CommandTimeoutException timeout) {
            throw onHost(attempt.timeUp("while host '" + host + "' downloaded it (the download there was ended)",
                    null), host);
        } catch (InterruptedIOException interrupted) {
            throw attempt.interrupted("interrupted while host '" + host + "' downloaded the image from "
                    + attempt.url() + "; the download there was ended", null);
        } catch (IOException broken) {
            throw onHost(attempt.transientFailure(Reason.UNREACHABLE, "the download could not run there, or its SSH"
                    + " channel broke (" + attempt.url().describe(broken) + "); retry", broken), host);
        }
        Report report = Report.parse(result.out());
        if (report.value("tool").isEmpty() && report.value("error").isEmpty()) {
            throw onHost(attempt.transientFailure(Reason.UNREACHABLE, "the download script ended with exit status "
                    + result.exitStatus() + " without a report (" + attempt.url().scrub(firstLine(result.err()))
                    + "); check that the login there has a POSIX sh, then retry", null), host);
        }
        return report;
    }

    /** The script's own refusals: tools missing, an unwritable target, no temporary folder. */
    private static void failIfSetUpFailed(Report report, FetchAttempt attempt, String host) {
        Optional<String> error = report.value("error");
        if (error.isEmpty()) {
            return;
        }
        String what = error.get();
        if (what.equals("no-download-tool")) {
            throw onHost(attempt.permanent(Reason.UNREACHABLE, "neither curl nor wget is installed there, so it"
                    + " cannot download the image from " + attempt.url() + "; install curl there (for example"
                    + " 'apt-get install curl'), or set fetch: client", null), host);
        }
        if (what.startsWith("missing ")) {
            String tool = what.substring("missing ".length());
            throw onHost(attempt.permanent(Reason.UNREACHABLE, tool + " is not installed there (a host-side fetch"
                    + " needs it); install it there, or set fetch: client", null), host);
        }
        if (what.equals("target-not-writable")) {
            throw onHost(attempt.permanent(Reason.UNREACHABLE, "the SSH login may not write the new base volume's"
                    + " file in the storage pool's folder; log in as root (or as a user that may write there),"
                    + " or set fetch: client", null), host);
        }
        throw onHost(attempt.transientFailure(Reason.UNREACHABLE, "the download script could not start (" + what
                + "); check the temporary folder there (TMPDIR, /tmp), then retry", null), host);
    }

    /**
     * The published length from the report: the download tool's failure classified first (an
     * unreachable server, a stall, the time limit, a short body), then the answer as the
     * client-side fetch classifies it.
     */
    private static long length(Report report, FetchAttempt attempt, String host, boolean readerEnded) {
        int fetch = report.status("fetch").orElse(-1);
        Optional<Integer> status = statusOf(report);
        String said = messages(report, attempt);
        boolean wget = report.wget();
        boolean httpError = wget ? fetch == 8 : fetch == 22;
        boolean cutByUs = readerEnded && fetch == (wget ? 3 : 23);
        if (fetch != 0 && !httpError && !cutByUs) {
            String lower = said.toLowerCase(Locale.ROOT);
            if (!wget && fetch == 28 && lower.contains("too slow") || wget && lower.contains("timed out")
                    && status.isPresent()) {
                throw onHost(attempt.stalled("while the host downloaded it (" + received(status) + ")" + said,
                        null), host);
            }
            if (!wget && fetch == 28 && status.isPresent()) {
                throw onHost(attempt.timeUp("while the host downloaded it" + said, null), host);
            }
            if (status.isEmpty()) {
                throw onHost(attempt.transientFailure(Reason.UNREACHABLE, "could not fetch the image from "
                        + attempt.url() + " (" + report.value("tool").orElse("the download tool") + " exit status "
                        + fetch + said + "); check that the server is reachable from host '" + host
                        + "' (not only from this machine), then retry", null), host);
            }
            throw onHost(attempt.transientFailure(Reason.BODY_BROKEN, "the download from " + attempt.url()
                    + " broke off (" + report.value("tool").orElse("") + " exit status " + fetch + said
                    + "); retry", null), host);
        }
        if (status.isEmpty()) {
            throw onHost(attempt.transientFailure(Reason.UNREACHABLE, "could not fetch the image from "
                    + attempt.url() + said + "; check that the server is reachable from host '" + host
                    + "', then retry", null), host);
        }
        try {
            return attempt.publishedLength(status.get(), headers(report), attempt.source());
        } catch (ImageFetchException classified) {
            throw onHost(classified, host);
        }
    }

    private static String received(Optional<Integer> status) {
        return status.map(code -> "after an answer HTTP " + code).orElse("no response headers arrived");
    }

    /** The last response's status: the tools record every response, such as a 100 Continue, in turn. */
    static Optional<Integer> statusOf(Report report) {
        Optional<Integer> status = Optional.empty();
        for (String line : headerLines(report)) {
            Matcher matcher = STATUS_LINE.matcher(line);
            if (matcher.matches()) {
                status = Optional.of(Integer.valueOf(matcher.group(1)));
            }
        }
        return status;
    }

    /** The headers of the last response. */
    static HttpHeaders headers(Report report) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String line : headerLines(report)) {
            if (STATUS_LINE.matcher(line).matches()) {
                headers.clear();
                continue;
            }
            Matcher matcher = HEADER_LINE.matcher(line);
            if (matcher.matches()) {
                headers.computeIfAbsent(matcher.group(1), name -> new ArrayList<>()).add(matcher.group(2).strip());
            }
        }
        return HttpHeaders.of(headers, (name, value) -> true);
    }

    /** Header lines; wget's stderr holds its own messages too, the server's lines indented by two spaces. */
    private static List<String> headerLines(Report report) {
        if (!report.wget()) {
            return report.headerLines().stream().map(String::strip).toList();
        }
        return report.headerLines().stream().filter(line -> line.startsWith("  ")).map(String::strip).toList();
    }

    /** The download tool's messages, scrubbed of the URL's secret parts, as {@code ": ..."}; empty without any. */
    private static String messages(Report report, FetchAttempt attempt) {
        List<String> lines = new ArrayList<>(report.messages());
        if (report.wget()) {
            report.headerLines().stream().filter(line -> !line.startsWith("  ") && !line.isBlank()).forEach(lines::add);
        }
        return text(lines, attempt);
    }

    /** {@code lines} joined, cut and scrubbed of the URL's secret parts, as {@code ": ..."}; empty without any. */
    private static String text(List<String> lines, FetchAttempt attempt) {
        String text = String.join("; ", lines.stream().map(String::strip).filter(line -> !line.isEmpty()).toList());
        if (text.length() > 300) {
            text = text.substring(0, 300) + "...";
        }
        return text.isEmpty() ? "" : ": " + attempt.url().scrub(text);
    }

    private static long number(Report report, String key) {
        String text = report.value(key).orElse("");
        return text.matches("[0-9]{1,18}") ? Long.parseLong(text) : -1;
    }

    private static String firstLine(String text) {
        String stripped = text.strip();
        int end = stripped.indexOf('\n');
        return end < 0 ? stripped : stripped.substring(0, end);
    }

    /** Whole seconds, rounded up: curl's limits take seconds. */
    private static long seconds(Duration duration) {
        return Math.max(1, (duration.toMillis() + 999) / 1000);
    }

    /** {@code failure} with the host named in front, its kind, reason and cause kept. */
    static ImageFetchException onHost(ImageFetchException failure, String host) {
        String prefix = "on host '" + host + "': ";
        if (failure.getMessage().startsWith(prefix)) {
            return failure;
        }
        return new ImageFetchException(failure.kind(), failure.reason(), prefix + failure.getMessage(),
                failure.getCause());
    }
}
