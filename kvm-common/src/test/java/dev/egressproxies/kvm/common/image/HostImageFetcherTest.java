package dev.egressproxies.kvm.common.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.kvm.common.host.HostShell;
import dev.egressproxies.kvm.common.image.HostFetchScript.Report;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import dev.egressproxies.kvm.common.image.ImageFetcher.FetchResult;
import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import dev.egressproxies.kvm.common.testing.ImageServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The host-side fetch's scripts, run by this machine's sh, curl, sha256sum and decompressors (as a
 * hypervisor runs them) against a loopback image server: what lands in the file, and every failure
 * classified and phrased as the client-side fetch does, naming the host.
 */
class HostImageFetcherTest {
    private static final String HOST = "kvm-1";
    private static final byte[] IMAGE = TestImages.disk(300_000, 7);

    @TempDir
    Path folder;

    private final ImageServer server = newServer();
    private final HostImageFetcher fetcher = new HostImageFetcher(TransferBudget.of(Duration.ofMinutes(1)),
            Duration.ofSeconds(2));

    private static ImageServer newServer() {
        try {
            return new ImageServer();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Path target() throws IOException {
        return Files.createFile(folder.resolve("base.qcow2"));
    }

    private FetchResult fetch(ImageSource source, Path target) {
        return fetcher.fetch(new LocalShell(), HOST, source, target.toString(), Deadline.after(Duration.ofSeconds(30)));
    }

    private ImageFetchException failure(ImageSource source) throws IOException {
        ImageFetchException failure = catchThrowableOfType(ImageFetchException.class, () -> fetch(source, target()));
        System.out.println("[host fetch] " + failure.kind() + " " + failure.reason() + ": " + failure.getMessage());
        return failure;
    }

    /** A folder of links to every command of /usr/bin but {@code left}, for a PATH without it. */
    private Path binWithout(String left) throws IOException {
        Path bin = Files.createDirectories(folder.resolve("bin-without-" + left));
        try (var commands = Files.list(Path.of("/usr/bin"))) {
            for (Path command : commands.toList()) {
                if (!command.getFileName().toString().equals(left)) {
                    Files.createSymbolicLink(bin.resolve(command.getFileName()), command);
                }
            }
        }
        return bin;
    }

    @Nested
    class Downloads {
        @Test
        void anUncompressedImageLandsInTheFileWithItsLengthAndDigest() throws IOException {
            server.serve("/disk.qcow2", IMAGE);
            Path target = target();

            FetchResult result = fetch(ImageSource.builder(server.url("/disk.qcow2")).sha256(TestImages.sha256(IMAGE))
                    .build(), target);

            assertThat(Files.readAllBytes(target)).isEqualTo(IMAGE);
            assertThat(result).isEqualTo(new FetchResult(IMAGE.length, TestImages.sha256(IMAGE), IMAGE.length));
        }

        @ParameterizedTest
        @EnumSource(value = Compression.class, names = {"XZ", "GZIP", "BZIP2", "ZSTD"})
        void aCompressedImageIsDecompressedOnTheHostAndItsPublishedFileChecked(Compression compression)
                throws IOException {
            byte[] published = TestImages.compress(compression, IMAGE);
            server.serve("/disk.qcow2" + compression.fileSuffix(), published);
            Path target = target();

            FetchResult result = fetch(ImageSource.builder(server.url("/disk.qcow2" + compression.fileSuffix()))
                    .sha256(TestImages.sha256(published)).build(), target);

            assertThat(Files.readAllBytes(target)).isEqualTo(IMAGE);
            assertThat(result).isEqualTo(new FetchResult(published.length, TestImages.sha256(published),
                    IMAGE.length));
        }

        @Test
        void aHostWithWgetButNoCurlDownloadsWithWgetAndItsAnswersAreClassifiedAlike() throws IOException {
            server.serve("/disk.qcow2", IMAGE);
            server.status("/gone.qcow2", 404);
            HostShell withoutCurl = new LocalShell(Map.of("PATH", binWithout("curl").toString()));
            Path target = target();

            FetchResult result = fetcher.fetch(withoutCurl, HOST, ImageSource.builder(server.url("/disk.qcow2"))
                    .sha256(TestImages.sha256(IMAGE)).build(), target.toString(), Deadline.after(Duration.ofSeconds(30)));
            Path other = Files.createFile(folder.resolve("other.qcow2"));
            ImageFetchException missing = catchThrowableOfType(ImageFetchException.class, () -> fetcher.fetch(
                    withoutCurl, HOST, ImageSource.builder(server.url("/gone.qcow2")).build(), other.toString(),
                    Deadline.after(Duration.ofSeconds(30))));

            assertThat(Files.readAllBytes(target)).isEqualTo(IMAGE);
            assertThat(result.sha256()).isEqualTo(TestImages.sha256(IMAGE));
            assertThat(missing.getMessage()).endsWith("answered HTTP 404; fix the image URL");
            assertThat(fetcher.publishedBytes(withoutCurl, HOST, ImageSource.builder(server.url("/disk.qcow2"))
                    .build(), Deadline.after(Duration.ofSeconds(30)))).isEqualTo(IMAGE.length);
        }

        @Test
        void theSizeProbeIsAHeadFromTheHost() {
            server.serve("/disk.qcow2", IMAGE);

            long size = fetcher.publishedBytes(new LocalShell(), HOST, ImageSource.builder(server.url("/disk.qcow2"))
                    .build(), Deadline.after(Duration.ofSeconds(30)));

            assertThat(size).isEqualTo(IMAGE.length);
            assertThat(server.heads("/disk.qcow2")).isEqualTo(1);
            assertThat(server.gets("/disk.qcow2")).isZero();
        }

        @Test
        void aServerRefusingHeadIsAskedWithAGetCutShort() {
            server.serveWithoutHead("/disk.qcow2", IMAGE);

            long size = fetcher.publishedBytes(new LocalShell(), HOST, ImageSource.builder(server.url("/disk.qcow2"))
                    .build(), Deadline.after(Duration.ofSeconds(30)));

            assertThat(size).isEqualTo(IMAGE.length);
        }
    }

    @Nested
    class Failures {
        @Test
        void aWrongSha256IsPermanentAndNamesTheHostAndBothDigests() throws IOException {
            server.serve("/disk.qcow2", IMAGE);
            String wrong = "0".repeat(64);

            ImageFetchException failure = failure(ImageSource.builder(server.url("/disk.qcow2")).sha256(wrong).build());

            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(failure.reason()).isEqualTo(Reason.DIGEST_MISMATCH);
            assertThat(failure.getMessage()).startsWith("on host 'kvm-1': the image from http://127.0.0.1:")
                    .contains("has sha256 " + TestImages.sha256(IMAGE), "not the configured " + wrong);
        }

        @Test
        void aMissingImageIsPermanentWithTheStatus() throws IOException {
            server.status("/gone.qcow2", 404);

            ImageFetchException failure = failure(ImageSource.builder(server.url("/gone.qcow2")).build());

            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(failure.getMessage()).isEqualTo("on host 'kvm-1': " + server.url("").replace("/", "")
                    .replace("http:", "http://") + " answered HTTP 404; fix the image URL");
        }

        @Test
        void anOverloadedServerIsTransient() throws IOException {
            server.status("/busy.qcow2", 503);

            ImageFetchException failure = failure(ImageSource.builder(server.url("/busy.qcow2")).build());

            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.getMessage()).contains("answered HTTP 503", "retry later");
        }

        @Test
        void aServerThatStallsIsStalledAfterTheIdleLimit() throws IOException {
            CountDownLatch release = new CountDownLatch(1);
            server.serveStalled("/slow.qcow2", IMAGE, 1000, release);
            try {
                ImageFetchException failure = failure(ImageSource.builder(server.url("/slow.qcow2")).build());

                assertThat(failure.reason()).isEqualTo(Reason.STALLED);
                assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
                assertThat(failure.getMessage()).startsWith("on host 'kvm-1': the image server ")
                        .contains("sent nothing for 2s (imageIdleTimeout)");
            } finally {
                release.countDown();
            }
        }

        @Test
        void aBodyCutShortIsTransient() throws IOException {
            server.serveCutOff("/cut.qcow2", IMAGE, 1000);

            ImageFetchException failure = failure(ImageSource.builder(server.url("/cut.qcow2")).build());

            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.reason()).isEqualTo(Reason.BODY_BROKEN);
        }

        @Test
        void anUnreachableServerSaysToCheckItFromTheHost() throws IOException {
            String url = server.url("/disk.qcow2");
            server.close();

            ImageFetchException failure = failure(ImageSource.builder(url).build());

            assertThat(failure.reason()).isEqualTo(Reason.UNREACHABLE);
            assertThat(failure.getMessage()).contains("check that the server is reachable from host 'kvm-1'");
        }

        @Test
        void aFileThatIsNotWhatItsCompressionSaysIsPermanent() throws IOException {
            server.serve("/disk.qcow2.xz", IMAGE);

            ImageFetchException failure = failure(ImageSource.builder(server.url("/disk.qcow2.xz")).build());

            assertThat(failure.reason()).isEqualTo(Reason.CONTENT_INVALID);
            assertThat(failure.getMessage()).contains("xz could not decompress it");
        }

        @Test
        void aTarArchiveIsRefusedBeforeAnythingRuns() throws IOException {
            ImageFetchException failure = failure(ImageSource.builder(server.url("/disk.tar.xz")).build());

            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(failure.getMessage()).contains("does not unpack archives", "fetch: client");
            assertThat(server.gets("/disk.tar.xz")).isZero();
        }

        @Test
        void aHostWithoutCurlOrWgetIsPermanentAndSaysWhatToInstall() throws IOException {
            server.serve("/disk.qcow2", IMAGE);
            Path bin = Files.createDirectories(folder.resolve("bin"));
            for (String tool : List.of("sh", "sha256sum", "mkfifo", "mktemp", "tee", "wc", "head", "sed", "tr", "cat",
                    "cut", "rm", "kill")) {
                Optional<Path> found = List.of("/usr/bin", "/bin").stream().map(dir -> Path.of(dir, tool))
                        .filter(Files::isExecutable).findFirst();
                if (found.isPresent()) {
                    Files.createSymbolicLink(bin.resolve(tool), found.get());
                }
            }
            HostShell withoutCurl = new LocalShell(Map.of("PATH", bin.toString()));

            ImageFetchException failure = catchThrowableOfType(ImageFetchException.class, () -> fetcher.fetch(
                    withoutCurl, HOST, ImageSource.builder(server.url("/disk.qcow2")).build(), target().toString(),
                    Deadline.after(Duration.ofSeconds(30))));

            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(failure.getMessage()).contains("on host 'kvm-1'", "neither curl nor wget", "install curl");
        }

        @Test
        void credentialsInTheUrlAreNeitherSentNorShown() throws IOException {
            server.status("/private/disk.qcow2", 401);
            String url = server.url("/private/disk.qcow2").replace("http://", "http://operator:hunter22@");

            ImageFetchException failure = failure(ImageSource.builder(url + "?token=s3cr3t").build());

            assertThat(failure.getMessage()).contains("asks for credentials")
                    .doesNotContain("hunter22", "s3cr3t", "private", "operator");
        }
    }

    @Nested
    class Scripts {
        @Test
        void aQuotedWordSurvivesTheShellWhateverItHolds() throws IOException {
            String nasty = "it's $(rm -rf /) `x` \"y\" \\ ;|&";
            HostShell.CommandResult result = new LocalShell().run("printf %s " + HostShell.quote(nasty), new byte[0],
                    Duration.ofSeconds(10), 1000);

            assertThat(result.out()).isEqualTo(nasty);
        }

        @Test
        void theUrlReachesTheScriptOnStdinOnlyNeverItsCommandLine() {
            String script = HostFetchScript.fetch(Compression.XZ, "/pool/base", 30, 600);

            assertThat(script).doesNotContain("http").contains("IFS= read -r url", "xz -dc", "-K \"$dir/request\"",
                    "--speed-time 30", "--max-time 600", "target='/pool/base'");
        }

        @Test
        void aReportIsParsedIntoValuesHeadersAndMessages() {
            Report report = Report.parse(String.join("\n", "noise from a login script",
                    "egress-fetch tool curl", "egress-fetch header HTTP/1.1 100 Continue",
                    "egress-fetch header HTTP/1.1 200 OK", "egress-fetch header Content-Length: 12",
                    "egress-fetch message curl: (18) transfer closed", "egress-fetch fetch-rc 18", ""));

            assertThat(report.status("fetch")).contains(18);
            assertThat(report.wget()).isFalse();
            assertThat(HostImageFetcher.statusOf(report)).contains(200);
            assertThat(HostImageFetcher.headers(report).firstValueAsLong("Content-Length")).hasValue(12);
            assertThat(report.messages()).containsExactly("curl: (18) transfer closed");
        }

        @Test
        void aClosedStandardInputEndsTheDownloadAndItsTemporaryFolder() throws Exception {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch stalled = new CountDownLatch(1);
            server.serveStalled("/slow.qcow2", IMAGE, 1000, stalled, release);
            Path temporary = Files.createDirectories(folder.resolve("tmp"));
            String command = HostFetchScript.command(HostFetchScript.fetch(Compression.NONE, target().toString(), 60,
                    600));
            try {
                // The local shell closes stdin when its time is up, as a closed SSH channel does.
                assertThat(catchThrowableOfType(HostShell.CommandTimeoutException.class, () -> new LocalShell(
                        Map.of("TMPDIR", temporary.toString())).run(command,
                        (server.url("/slow.qcow2") + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        Duration.ofSeconds(3), 10_000))).isNotNull();
                assertThat(stalled.getCount()).isZero();
                long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (System.nanoTime() < until) {
                    try (var left = Files.list(temporary)) {
                        if (left.findAny().isEmpty()) {
                            break;
                        }
                    }
                    Thread.sleep(100);
                }
                try (var left = Files.list(temporary)) {
                    assertThat(left.toList()).as("the script's temporary folder, removed by its trap").isEmpty();
                }
            } finally {
                release.countDown();
            }
        }

        @Test
        void theToolLookupReportsMissingToolsAndTheFolder() throws IOException {
            HostImageFetcher.HostTools tools = HostImageFetcher.lookUpTools(new LocalShell(),
                    List.of("sh", "no-such-tool-here"), Optional.of(folder.toString()), Duration.ofSeconds(10));

            assertThat(tools.missing()).containsExactly("no-such-tool-here");
            assertThat(tools.downloader()).isPresent();
            assertThat(tools.folderWritable()).contains(true);
        }
    }
}
