package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release archive the way a user installs it: unpacked outside the source tree, started through
 * a symlink from another folder with the JDK named only by {@code JAVA_HOME}, it finds its bundled
 * backends in {@code plugins/}, makes its class-data-sharing archive in the user's cache in the
 * background of the first run without a word on standard output, and creates, lists, gets and deletes. Tagged
 * {@code integration}: it needs the archive, which only {@code package} builds.
 */
@Tag("integration")
class ReleaseArchiveEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    @Test
    void unpackedAnywhereItRunsThroughASymlinkWithJavaHomeAndItsBundledBackends() throws Exception {
        Path archive = releaseArchive();
        Path installed = Files.createDirectories(temp.resolve("opt"));
        run(installed, "tar", "xzf", archive.toString());
        Path unpacked;
        try (Stream<Path> folders = Files.list(installed)) {
            unpacked = folders.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        assertThat(unpacked.getFileName().toString()).startsWith("egressctl-");
        assertThat(unpacked.resolve("bin/egressctl")).isExecutable();
        // The package-time archive fits only the build's folder; the class list travels instead.
        assertThat(unpacked.resolve("lib/egressctl.jsa")).doesNotExist();
        assertThat(unpacked.resolve("lib/cds-classes.txt")).content().contains("org/apache/sshd/");
        assertThat(unpacked.resolve("notices/THIRD-PARTY.txt")).content().contains("sshd-osgi").contains("picocli")
                .contains("conformance/ junit-jupiter-engine").contains("telemetry/ opentelemetry-sdk-trace");
        // The suite and JUnit, for 'egressctl conformance' alone, stay off the platform's module path.
        assertThat(unpacked.resolve("lib/conformance")).isDirectoryContaining("glob:**/conformance-kit-*.jar")
                .isDirectoryContaining("glob:**/junit-platform-launcher-*.jar");
        assertThat(unpacked.resolve("lib")).isDirectoryNotContaining("glob:**/junit-*.jar");
        // The OpenTelemetry SDK, for runs that export alone, likewise.
        assertThat(unpacked.resolve("lib/telemetry")).isDirectoryContaining("glob:**/opentelemetry-sdk-1*.jar")
                .isDirectoryContaining("glob:**/opentelemetry-exporter-logging-*.jar");
        assertThat(unpacked.resolve("lib")).isDirectoryNotContaining("glob:**/opentelemetry-sdk*.jar")
                .isDirectoryContaining("glob:**/opentelemetry-api-*.jar");
        assertThat(unpacked.resolve("plugins/fake")).isDirectoryNotContaining("glob:**/jackson-databind-*.jar");
        assertThat(unpacked.resolve("examples/kvm2.yaml")).isRegularFile();
        // kvm and kvm2 share one plugin (one module layer): see docs/plugins.md.
        Map<String, String> folders = Map.of("fake", "fake", "kvm", "kvm", "kvm2", "kvm");
        folders.forEach((backend, folder) -> assertThat(unpacked.resolve("plugins/" + folder))
                .isDirectoryContaining("glob:**/provider-" + backend + "-*.jar"));
        assertThat(unpacked.resolve("lib")).isDirectoryNotContaining("glob:**/provider-kvm*.jar");

        // JAVA_HOME names a JDK whose java leaves a mark, so the test knows that java is the one started.
        Path marker = temp.resolve("java-started");
        Path jdk = Files.createDirectories(temp.resolve("jdk/bin"));
        Path dumps = temp.resolve("archives-started");
        Path java = Files.writeString(jdk.resolve("java"), "#!/bin/sh\ntouch '" + marker + "'\n"
                + "[ \"$1\" = -Xshare:dump ] && echo started >>'" + dumps + "'\nexec '"
                + Path.of(System.getProperty("java.home"), "bin", "java") + "' \"$@\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path bin = Files.createDirectories(temp.resolve("usr/bin"));
        Path symlink = Files.createSymbolicLink(bin.resolve("egressctl"), unpacked.resolve("bin/egressctl"));
        Path home = Files.createDirectories(temp.resolve("home"));
        Path work = Files.createDirectories(temp.resolve("work"));
        Path state = temp.resolve("state");
        Files.writeString(work.resolve("egress.yaml"), """
                providers:
                  - name: lab
                    type: fake
                    stateFile: %s/lab.json
                """.formatted(state));
        EgressctlProcess egressctl = new EgressctlProcess(symlink, home, work)
                .with("JAVA_HOME", jdk.getParent().toString())
                .with("EGRESSCTL_NO_CDS_CACHE", "");

        // The first run starts the archive for this JDK and folder in the background; its own
        // output stays clean JSON, and later runs map their classes from that archive.
        JsonNode providers = json(egressctl.run("providers", "-o", "json"));
        assertThat(marker).exists();
        assertThat(providers.toString()).contains(unpacked.resolve("plugins/kvm").toString());
        // Commands started while the archive is being made use none rather than making another.
        for (int run = 0; run < 4; run++) {
            assertThat(egressctl.run("--version").exitCode()).isZero();
        }
        Path cache = home.resolve(".cache/egressctl");
        assertThat(awaitArchive(cache, FileTime.fromMillis(0))).as("class-data-sharing archive in " + cache).isTrue();
        assertThat(Files.readAllLines(dumps)).as("archives started for one JDK and folder").hasSize(1);
        EgressctlProcess classLoads = new EgressctlProcess(symlink, home, work)
                .with("JAVA_HOME", jdk.getParent().toString())
                .with("EGRESSCTL_NO_CDS_CACHE", "")
                .with("EGRESSCTL_JAVA_OPTS", "-Xlog:class+load=info");
        EgressctlProcess.Result mapped = classLoads.run("--version");
        assertThat(mapped.out()).contains("dev.egressproxies.runtime.Main source: shared objects file")
                // The plugin layers' classes are in it too, archived from this folder's plugin jars.
                .contains("dev.egressproxies.kvm.KvmProviderFactory source: shared objects file");

        // An upgrade in place replaces jars after the archive was made: the archive no longer fits,
        // so the next run starts without it and a new one replaces it.
        Path stamp;
        try (Stream<Path> files = Files.list(cache)) {
            stamp = files.filter(path -> path.getFileName().toString().endsWith(".stamp")).findFirst().orElseThrow();
        }
        Files.setLastModifiedTime(stamp, FileTime.from(Instant.now().minus(Duration.ofHours(1))));
        Path replaced;
        try (Stream<Path> jars = Files.list(unpacked.resolve("lib"))) {
            replaced = jars.filter(path -> path.getFileName().toString().startsWith("registry-")).findFirst()
                    .orElseThrow();
        }
        Files.setLastModifiedTime(replaced, FileTime.from(Instant.now().minus(Duration.ofMinutes(1))));
        EgressctlProcess.Result upgraded = egressctl.run("--version");
        assertThat(upgraded.err()).doesNotContain("cds");
        assertThat(awaitArchive(cache, Files.getLastModifiedTime(replaced)))
                .as("a new class-data-sharing archive in " + cache).isTrue();
        assertThat(classLoads.run("--version").out())
                .contains("dev.egressproxies.runtime.Main source: shared objects file");

        EgressctlProcess.Result created = egressctl.run("create", "vm1", "--machine-type", "small",
                "--image", "debian-12");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        String id = created.out().trim();
        assertThat(id).startsWith("lab/");
        assertThat(json(egressctl.run("get", id, "-o", "json")).get("state").asText()).isEqualTo("RUNNING");
        assertThat(json(egressctl.run("list", "-o", "json"))).hasSize(1);
        EgressctlProcess.Result deleted = egressctl.run("delete", id);
        assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
        assertThat(json(egressctl.run("list", "-o", "json"))).isEmpty();

        JsonNode certified = json(egressctl.run("conformance", "lab", "-o", "json"));
        assertThat(certified.get("failed").asInt()).as(certified.toString()).isZero();
        assertThat(certified.get("passed").asInt()).isEqualTo(certified.get("cases").size());
    }

    /** Waits up to a minute for exactly one finished archive in {@code cache}, its stamp newer than {@code after}. */
    private static boolean awaitArchive(Path cache, FileTime after) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.isDirectory(cache)) {
                List<Path> archives;
                try (Stream<Path> files = Files.list(cache)) {
                    archives = files.filter(path -> path.getFileName().toString().matches("cds-\\d+\\.jsa")).toList();
                }
                Path stamp = archives.size() == 1
                        ? archives.get(0).resolveSibling(archives.get(0).getFileName().toString().replace(".jsa", ".stamp"))
                        : null;
                if (stamp != null && Files.exists(stamp) && Files.getLastModifiedTime(stamp).compareTo(after) > 0) {
                    return true;
                }
            }
            Thread.sleep(200);
        }
        return false;
    }

    private static Path releaseArchive() throws IOException {
        Path target = EgressctlProcess.distribution().getParent();
        try (Stream<Path> files = Files.list(target)) {
            return files.filter(path -> path.getFileName().toString().matches("egressctl-.*\\.tar\\.gz"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no egressctl-VERSION.tar.gz in " + target
                            + ": build it with ./mvnw package -pl runtime -am"));
        }
    }

    private static void run(Path directory, String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(directory.toFile()).inheritIO().start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command)).isZero();
    }

    private static JsonNode json(EgressctlProcess.Result result) throws IOException {
        assertThat(result.exitCode()).as(result.toString()).isZero();
        return JSON.readTree(result.out());
    }
}
