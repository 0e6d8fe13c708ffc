package dev.egressproxies.kvm.common.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The private folder that holds a local socket, and the removal of those whose process is gone. */
class PrivateSocketDirectoryTest {
    private static final String PREFIX = "egress-test-";

    @TempDir
    Path temporary;

    @Test
    void isOwnerOnlyNamedAfterItsProcessAndDeletedWithItsContent() throws Exception {
        PrivateSocketDirectory directory = PrivateSocketDirectory.create(PREFIX);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory.path())))
                .isEqualTo("rwx------");
        assertThat(directory.path().getFileName().toString())
                .startsWith(PREFIX + ProcessHandle.current().pid() + "-");
        Files.writeString(directory.resolve("forwarded.sock"), "stands in for the socket");
        directory.close();
        assertThat(directory.path()).doesNotExist();
        directory.close();
    }

    @Test
    void foldersOfProcessesThatAreGoneAreRemovedAndOthersKept() throws Exception {
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        Path ofDeadProcess = folder(PREFIX + finished.pid() + "-123");
        Path ofThisProcess = folder(PREFIX + ProcessHandle.current().pid() + "-456");
        Path ofReusedPid = folder(PREFIX + ProcessHandle.current().pid() + "-789");
        // Older than this process: the PID was another process's when the folder was made.
        Files.setLastModifiedTime(ofReusedPid, FileTime.from(Instant.parse("2001-01-01T00:00:00Z")));
        Path notOurs = folder(PREFIX + "no-pid");
        Path otherPrefix = folder("egress-other-" + finished.pid() + "-1");

        PrivateSocketDirectory.removeFoldersOfDeadProcesses(temporary, PREFIX);

        assertThat(ofDeadProcess).doesNotExist();
        assertThat(ofReusedPid).doesNotExist();
        assertThat(ofThisProcess).exists();
        assertThat(notOurs).exists();
        assertThat(otherPrefix).exists();
    }

    private Path folder(String name) throws Exception {
        Path folder = Files.createDirectory(temporary.resolve(name));
        Files.writeString(folder.resolve("forwarded.sock"), "stands in for the socket");
        return folder;
    }
}
