package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SSH tunnel's private socket folders ({@code egress-ssh-tunnel-PID-N} in the temporary folder)
 * do not outlive the {@code egressctl} processes that made them: 100 short commands (each a
 * {@code list} of a {@code kvm} entry on the real stack, so each dials the host over SSH and exits)
 * leave none, and the folder of a process killed with SIGKILL, which no cleanup of its own can
 * remove, is removed by the next command's start.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class TunnelFoldersEndToEndTest {
    private static final String FOLDER_PREFIX = "egress-ssh-tunnel-";
    private static final int COMMANDS = 100;
    /** Commands run at once: enough to finish in a few minutes, few enough for a shared 2-core machine. */
    private static final int AT_ONCE = 4;
    private static final Path TEMPORARY = Path.of(System.getProperty("java.io.tmpdir"));

    @TempDir
    Path temp;

    @Test
    void aHundredCommandsLeaveNoTunnelFolder() throws IOException {
        EgressctlProcess egressctl = egressctl(KvmTestConfig.standard());
        List<Long> pids = new ArrayList<>();
        long started = System.nanoTime();

        for (int first = 0; first < COMMANDS; first += AT_ONCE) {
            List<EgressctlProcess.Running> running = new ArrayList<>();
            for (int index = first; index < Math.min(COMMANDS, first + AT_ONCE); index++) {
                running.add(egressctl.start("list", "--provider", KvmTestConfig.ENTRY, "-o", "json"));
            }
            for (EgressctlProcess.Running command : running) {
                EgressctlProcess.Result result = command.await();
                assertThat(result.exitCode()).as(result.toString()).isZero();
                pids.add(command.process().pid());
            }
        }

        System.out.println("[tunnel folders] " + COMMANDS + " list commands in "
                + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + " s; their folders left: "
                + foldersOf(pids));
        assertThat(pids).hasSize(COMMANDS);
        assertThat(foldersOf(pids)).as("tunnel folders of the %d commands", COMMANDS).isEmpty();
    }

    @Test
    void theFolderOfAKilledProcessIsRemovedByTheNextCommand() throws Exception {
        String key = NoKvmLeftovers.FAULT_PREFIX + "killed-" + Integer.toHexString(ThreadLocalRandom.current().nextInt());
        CountDownLatch release = new CountDownLatch(1);
        try (ImageServer server = new ImageServer()) {
            // The create holds its tunnel open while it waits for the image's answer, which never comes.
            server.serveHeadOnly("/never.qcow2", 1024 * 1024, new CountDownLatch(1), release);
            KvmTestConfig config = KvmTestConfig.standard().image(key, server.url("/never.qcow2"))
                    .setting("imageIdleTimeout", "60s");
            EgressctlProcess egressctl = egressctl(config);
            EgressctlProcess.Running create = egressctl.start("create", key + "-vm", "--provider", config.entry(),
                    "--zone", KvmTestConfig.HOST, "--machine-type", KvmTestConfig.MACHINE_TYPE, "--image", key);
            long pid = create.process().pid();
            List<Path> folders = awaitFolderOf(pid);

            create.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            assertThat(foldersOf(List.of(pid))).as("the killed process's folder, right after the kill")
                    .isEqualTo(folders);
            EgressctlProcess.Result next = egressctl.run("list", "--provider", config.entry(), "-o", "json");

            System.out.println("[tunnel folders] killed " + pid + " with " + folders + "; after the next command: "
                    + foldersOf(List.of(pid)));
            assertThat(next.exitCode()).as(next.toString()).isZero();
            assertThat(foldersOf(List.of(pid))).as("the killed process's folder after the next command").isEmpty();
        } finally {
            release.countDown();
            // The killed create held the image's fetch lease, which only the lease's expiry or a
            // later create would clear.
            for (String volume : NoKvmLeftovers.volumesNamedWith(KvmTestConfig.standard().stack().pool(), key)) {
                Virsh.run("vol-delete", "--pool", KvmTestConfig.standard().stack().pool(), volume);
            }
        }
    }

    private List<Path> awaitFolderOf(long pid) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            List<Path> folders = foldersOf(List.of(pid));
            if (!folders.isEmpty()) {
                return folders;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("process " + pid + " made no " + FOLDER_PREFIX + pid + "-* folder within 30 s");
    }

    /** The tunnel folders in the temporary folder that name one of {@code pids} as their process. */
    private static List<Path> foldersOf(List<Long> pids) throws IOException {
        try (Stream<Path> entries = Files.list(TEMPORARY)) {
            return entries.filter(path -> pids.stream().anyMatch(pid -> path.getFileName().toString()
                    .startsWith(FOLDER_PREFIX + pid + "-"))).sorted().toList();
        }
    }

    private EgressctlProcess egressctl(KvmTestConfig config) throws IOException {
        Path work = Files.createDirectories(temp.resolve("work"));
        Path file = Files.writeString(work.resolve("egress.yaml"), config.yaml());
        return new EgressctlProcess(Files.createDirectories(temp.resolve("home")), work)
                .with("EGRESS_CONFIG", file.toString());
    }
}
