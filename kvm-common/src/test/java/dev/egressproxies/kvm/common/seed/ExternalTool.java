package dev.egressproxies.kvm.common.seed;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A command-line program installed on the machine that reads ISO images independently of the
 * writer under test, and the Debian package that provides it.
 *
 * <p>A missing program fails the test instead of skipping it: CI installs all of them, and a
 * verification that silently does not run is no verification. The failure names the package.
 */
final class ExternalTool {
    static final ExternalTool XORRISO = new ExternalTool("xorriso", "xorriso");
    static final ExternalTool ISOINFO = new ExternalTool("isoinfo", "genisoimage");
    static final ExternalTool BSDTAR = new ExternalTool("bsdtar", "libarchive-tools");
    static final ExternalTool BLKID = new ExternalTool("blkid", "util-linux");

    private static final long TIMEOUT_SECONDS = 60;
    /** blkid lives in sbin, which is not on every user's PATH. */
    private static final List<String> EXTRA_DIRECTORIES = List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin");

    private final String program;
    private final String debianPackage;

    ExternalTool(String program, String debianPackage) {
        this.program = program;
        this.debianPackage = debianPackage;
    }

    /** Returns the program's path, or fails the test saying which package to install. */
    Path executable() {
        return find().orElseGet(() -> fail(program + " is not installed, and the seed ISO tests need it as an"
                + " independent reader of the images: install it with"
                + " 'apt-get install -y --no-install-recommends " + debianPackage + "'"));
    }

    /**
     * Runs the program with {@code arguments} and returns what it printed, failing the test when
     * it exits with anything but 0 or runs for over a minute.
     */
    Result run(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(executable().toString());
        command.addAll(List.of(arguments));
        Path standardOutput = Files.createTempFile(program, ".out");
        Path standardError = Files.createTempFile(program, ".err");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(standardOutput.toFile())
                    .redirectError(standardError.toFile())
                    .start();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
                fail(String.join(" ", command) + " ran for over " + TIMEOUT_SECONDS + " seconds");
            }
            Result result = new Result(process.exitValue(), Files.readAllBytes(standardOutput),
                    Files.readString(standardError, StandardCharsets.UTF_8));
            if (result.exitCode() != 0) {
                fail(String.join(" ", command) + " exited with " + result.exitCode() + ":\n" + result.standardError()
                        + result.standardOutputText());
            }
            return result;
        } finally {
            Files.deleteIfExists(standardOutput);
            Files.deleteIfExists(standardError);
        }
    }

    private Optional<Path> find() {
        Set<String> directories = new LinkedHashSet<>();
        String path = System.getenv("PATH");
        if (path != null) {
            directories.addAll(List.of(path.split(File.pathSeparator)));
        }
        directories.addAll(EXTRA_DIRECTORIES);
        return directories.stream()
                .filter(directory -> !directory.isEmpty())
                .map(directory -> Path.of(directory, program))
                .filter(Files::isExecutable)
                .findFirst();
    }

    @Override
    public String toString() {
        return program;
    }

    /** What a run of the program printed. */
    record Result(int exitCode, byte[] standardOutput, String standardError) {
        String standardOutputText() {
            return new String(standardOutput, StandardCharsets.UTF_8);
        }

        List<String> standardOutputLines() {
            return standardOutputText().lines().toList();
        }
    }
}
