package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.kvm.common.ssh.SshTunnelException.Reason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.sshd.client.config.hosts.KnownHostEntry;
import org.apache.sshd.common.config.keys.PublicKeyEntryResolver;

/**
 * The entries of an OpenSSH known_hosts file, read once per connection attempt.
 *
 * <p>Unlike OpenSSH, which skips lines it cannot parse, a bad line is refused with its line
 * number: a typo that silently drops the entry of the host being dialled would otherwise turn
 * into a puzzling "unknown host". Entries whose key type this client does not know (security-key
 * types, for example) are skipped, as OpenSSH does.
 */
final class KnownHosts {
    /** Far above any real known_hosts file; a bound so a wrong path cannot exhaust the heap. */
    static final int MAXIMUM_BYTES = 4 * 1024 * 1024;

    /** One parsed line: its host patterns and marker, the key it records, and where it is. */
    record Entry(KnownHostEntry hostEntry, PublicKey key, int lineNumber) {
        /** Returns the entry's marker ({@code revoked}, {@code cert-authority}) or null. */
        String marker() {
            return hostEntry.getMarker();
        }

        boolean matchesAny(Collection<String> hosts, int port) {
            return hosts.stream().anyMatch(host -> hostEntry.isHostMatch(host, port));
        }
    }

    private final Path file;
    private final List<Entry> entries;

    private KnownHosts(Path file, List<Entry> entries) {
        this.file = file;
        this.entries = entries;
    }

    /** Reads and parses {@code file}. */
    static KnownHosts load(Path file) throws SshTunnelException {
        byte[] content;
        try {
            content = BoundedFile.read(file, MAXIMUM_BYTES).orElseThrow(() -> new SshTunnelException(
                    Reason.KNOWN_HOSTS_INVALID, "known_hosts file " + file + " is larger than "
                            + MAXIMUM_BYTES / (1024 * 1024) + " MiB: point the setting at a real known_hosts file"));
        } catch (NoSuchFileException e) {
            throw new SshTunnelException(Reason.KNOWN_HOSTS_MISSING, "known_hosts file " + file
                    + " does not exist (yet): create or mount it with the hypervisors' host keys (for example"
                    + " from 'ssh-keyscan -p PORT HOST'), or opt in to insecureIgnoreHostKey on test machines", e);
        } catch (IOException e) {
            throw new SshTunnelException(Reason.KNOWN_HOSTS_UNREADABLE, "known_hosts file " + file
                    + " cannot be read (" + e + "): check that this process may read it", e);
        }
        return new KnownHosts(file, parse(file, new String(content, StandardCharsets.UTF_8)));
    }

    private static List<Entry> parse(Path file, String text) throws SshTunnelException {
        List<Entry> entries = new ArrayList<>();
        String[] lines = text.split("\\R", -1);
        for (int index = 0; index < lines.length; index++) {
            String line = lines[index].trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int lineNumber = index + 1;
            try {
                KnownHostEntry hostEntry = KnownHostEntry.parseKnownHostEntry(line);
                if (hostEntry == null || hostEntry.getKeyEntry() == null) {
                    throw new IllegalArgumentException("no key in the line");
                }
                // IGNORING yields null for key types MINA cannot decode; those entries are skipped.
                PublicKey key = hostEntry.getKeyEntry().resolvePublicKey(null, Map.of(), PublicKeyEntryResolver.IGNORING);
                if (key != null) {
                    entries.add(new Entry(hostEntry, key, lineNumber));
                }
            } catch (IOException | GeneralSecurityException | RuntimeException e) {
                throw new SshTunnelException(Reason.KNOWN_HOSTS_INVALID, "known_hosts file " + file + " line "
                        + lineNumber + " is not a valid entry (" + e.getMessage() + "): fix or remove that line;"
                        + " entries look like '[host]:port ssh-ed25519 AAAA...' (plain 'host' for port 22)", e);
            }
        }
        return List.copyOf(entries);
    }

    /** Returns the file the entries came from. */
    Path file() {
        return file;
    }

    /** Returns the entries whose host patterns match any of {@code hosts} at {@code port}. */
    List<Entry> entriesFor(Collection<String> hosts, int port) {
        return entries.stream().filter(entry -> entry.matchesAny(hosts, port)).toList();
    }
}
