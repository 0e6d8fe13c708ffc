package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.host.HostShell;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The POSIX sh scripts a hypervisor runs for a host-side fetch, and the report they print.
 *
 * <p>Every script reads the image URL as the first line of its standard input, so the URL (which
 * may hold a signed token) never appears in a command line that {@code ps} on the host shows; it
 * passes it to curl in a config file ({@code -K}) or to wget in an input file ({@code -i}), in a
 * private temporary folder. A background reader then waits for the end of standard input, which
 * comes when the SSH channel closes (the client's deadline, interrupt or death), and ends the whole
 * process group: sshd signals nothing to a command without a terminal, and a download writing into
 * a file would never notice a closed channel otherwise.
 *
 * <p>Lines of the report start with {@value #PREFIX}; values never hold the URL.
 */
final class HostFetchScript {
    static final String PREFIX = "egress-fetch ";

    private static final String PRELUDE = """
            set -u
            IFS= read -r url || { echo 'egress-fetch error no-url'; exit 70; }
            umask 077
            dir=$(mktemp -d "${TMPDIR:-/tmp}/egress-fetch.XXXXXX") \\
              || { echo 'egress-fetch error no-temporary-folder'; exit 71; }
            exec 3<&0
            ( while IFS= read -r _; do :; done <&3; kill -TERM 0 ) >/dev/null 2>&1 </dev/null &
            watch=$!
            exec 3<&-
            trap 'kill "$watch" 2>/dev/null; rm -rf "$dir"' EXIT
            trap 'exit 143' HUP INT TERM
            if command -v curl >/dev/null 2>&1; then tool=curl
            elif command -v wget >/dev/null 2>&1; then tool=wget
            else echo 'egress-fetch error no-download-tool'; exit 72; fi
            echo "egress-fetch tool $tool"
            if [ "$tool" = curl ]; then printf 'url = "%s"\\n' "$url" >"$dir/request"
            else printf '%s\\n' "$url" >"$dir/request"; fi
            get() {
              if [ "$tool" = curl ]; then
                case $1 in head) set -- -I -o /dev/null ;; file) set -- -o "$target" ;; *) set -- -o - ;; esac
                curl -sS -f -K "$dir/request" -D "$dir/headers" -H 'Accept-Encoding: identity' \\
                  --connect-timeout IDLE --speed-limit 1 --speed-time IDLE --max-time MAXIMUM "$@" 2>"$dir/messages"
              else
                case $1 in head) set -- --spider ;; file) set -- -O "$target" ;; *) set -- -O - ;; esac
                wget -nv -S --tries=1 --timeout=IDLE --max-redirect=0 --header='Accept-Encoding: identity' \\
                  "$@" -i "$dir/request" 2>"$dir/headers"
              fi
            }
            digest() {
              if command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 -r; else sha256sum; fi
            }
            report() {
              [ -f "$dir/headers" ] && tr -d '\\r' <"$dir/headers" | sed 's/^/egress-fetch header /'
              [ -f "$dir/messages" ] && head -c 4000 "$dir/messages" | tr -d '\\r' | sed 's/^/egress-fetch message /'
              [ -f "$dir/unpack.err" ] && head -c 1000 "$dir/unpack.err" | sed 's/^/egress-fetch unpack-message /'
              for step in fetch unpack write; do
                [ -s "$dir/$step.rc" ] && echo "egress-fetch $step-rc $(tr -dc 0-9 <"$dir/$step.rc")"
              done
              return 0
            }
            """;

    private HostFetchScript() {
    }

    /** The command line that runs {@code script} under {@code sh}, whatever the login's own shell is. */
    static String command(String script) {
        return "sh -c " + HostShell.quote(script);
    }

    /** The decompressor command a compression needs on the host; empty for none. */
    static Optional<String> decompressor(Compression compression) {
        return switch (compression) {
            case NONE -> Optional.empty();
            case XZ -> Optional.of("xz");
            case GZIP -> Optional.of("gzip");
            case BZIP2 -> Optional.of("bzip2");
            case ZSTD -> Optional.of("zstd");
        };
    }

    /** The commands every host fetch needs besides curl or wget and the decompressor. */
    static List<String> commonTools() {
        return List.of("sh", "sha256sum", "mkfifo", "mktemp", "tee", "wc", "head", "sed", "tr");
    }

    /**
     * Downloads into the file {@code target} (which must exist and be writable), decompressing as
     * {@code compression} says, counts and hashes the published bytes, then reports.
     */
    static String fetch(Compression compression, String target, long idleSeconds, long maximumSeconds) {
        List<String> tools = new ArrayList<>(commonTools());
        decompressor(compression).ifPresent(tools::add);
        String common = prelude(idleSeconds, maximumSeconds) + "target=" + HostShell.quote(target) + "\n"
                + "if [ ! -f \"$target\" ] || [ ! -w \"$target\" ]; then echo 'egress-fetch error target-not-writable';"
                + " exit 73; fi\n"
                + "for t in " + String.join(" ", tools) + "; do command -v \"$t\" >/dev/null 2>&1"
                + " || { echo \"egress-fetch error missing $t\"; exit 74; }; done\n";
        String transfer = decompressor(compression).map(HostFetchScript::streamed).orElse(DIRECT);
        return common + transfer
                + "echo \"egress-fetch published-bytes $(tr -dc 0-9 <\"$dir/published\" 2>/dev/null)\"\n"
                + "echo \"egress-fetch sha256 $(cut -c1-64 <\"$dir/sha256\" 2>/dev/null)\"\n"
                + "echo \"egress-fetch image-bytes $(wc -c <\"$target\" | tr -dc 0-9)\"\n"
                + "report\n";
    }

    /**
     * An uncompressed image: the download tool writes the file itself, then the file is hashed
     * (openssl's sha256 where there, several times faster than sha256sum) and measured. Piping the
     * download through tee into the hash instead cost three times the CPU in copies.
     */
    private static final String DIRECT = """
            { get file; echo $? >"$dir/fetch.rc"; } </dev/null
            if [ "$(cat "$dir/fetch.rc")" = 0 ]; then
              digest <"$target" >"$dir/sha256"
              wc -c <"$target" >"$dir/published"
              echo 0 >"$dir/write.rc"
            fi
            """;

    /** A compressed image: the published bytes are hashed and counted on their way to the decompressor. */
    private static String streamed(String decompressor) {
        return "mkfifo \"$dir/hash\" \"$dir/count\" || { echo 'egress-fetch error no-fifo'; exit 75; }\n"
                + "digest <\"$dir/hash\" >\"$dir/sha256\" &\nhashing=$!\n"
                + "wc -c <\"$dir/count\" >\"$dir/published\" &\ncounting=$!\n"
                + "{ get body; echo $? >\"$dir/fetch.rc\"; } </dev/null | tee \"$dir/hash\" \"$dir/count\""
                + " | { " + decompressor + " -dc 2>\"$dir/unpack.err\"; echo $? >\"$dir/unpack.rc\"; }"
                + " | { cat >\"$target\"; echo $? >\"$dir/write.rc\"; }\n"
                + "wait \"$hashing\" \"$counting\"\n";
    }

    /**
     * Asks for the image's headers only: a HEAD request ({@code head}), or a GET whose body is cut
     * after its first byte, for servers that refuse HEAD or answer it without a length.
     */
    static String probe(boolean head, long idleSeconds, long maximumSeconds) {
        String request = head ? "{ get head; echo $? >\"$dir/fetch.rc\"; } </dev/null\n"
                : "{ get body; echo $? >\"$dir/fetch.rc\"; } </dev/null | head -c 1 >/dev/null\n";
        return prelude(idleSeconds, maximumSeconds) + request + "report\n";
    }

    /** Looks up each of {@code tools} and whether {@code folder} (when given) is a writable folder. */
    static String tools(List<String> tools, Optional<String> folder) {
        StringBuilder script = new StringBuilder("for t in");
        tools.forEach(tool -> script.append(' ').append(HostShell.quote(tool)));
        script.append("; do p=$(command -v \"$t\" 2>/dev/null) && echo \"egress-fetch found $t $p\""
                + " || echo \"egress-fetch missing $t\"; done\n");
        folder.ifPresent(path -> script.append("if [ -d ").append(HostShell.quote(path)).append(" ] && [ -w ")
                .append(HostShell.quote(path)).append(" ]; then echo 'egress-fetch folder writable';"
                        + " else echo 'egress-fetch folder not-writable'; fi\n"));
        return script.toString();
    }

    /** The prelude with the download's limits: the idle limit and the whole transfer's, in seconds. */
    private static String prelude(long idleSeconds, long maximumSeconds) {
        return PRELUDE.replace("IDLE", Long.toString(Math.max(1, idleSeconds)))
                .replace("MAXIMUM", Long.toString(Math.max(1, maximumSeconds)));
    }

    /**
     * What a script printed: its {@code key value} lines by key (the last of each), the response
     * headers as the download tool recorded them, its messages and the decompressor's.
     */
    record Report(Map<String, String> values, List<String> headerLines, List<String> messages,
                  List<String> unpackMessages) {
        static Report parse(String out) {
            Map<String, String> values = new LinkedHashMap<>();
            List<String> headers = new ArrayList<>();
            List<String> messages = new ArrayList<>();
            List<String> unpackMessages = new ArrayList<>();
            for (String line : out.split("\n")) {
                if (!line.startsWith(PREFIX)) {
                    continue;
                }
                String rest = line.substring(PREFIX.length());
                int space = rest.indexOf(' ');
                String key = space < 0 ? rest : rest.substring(0, space);
                String value = space < 0 ? "" : rest.substring(space + 1);
                switch (key) {
                    case "header" -> headers.add(value);
                    case "message" -> messages.add(value);
                    case "unpack-message" -> unpackMessages.add(value);
                    default -> values.put(key, value.strip());
                }
            }
            return new Report(values, List.copyOf(headers), List.copyOf(messages), List.copyOf(unpackMessages));
        }

        Optional<String> value(String key) {
            return Optional.ofNullable(values.get(key));
        }

        /** A step's exit status ({@code fetch}, {@code unpack}, {@code write}); empty when it did not report. */
        Optional<Integer> status(String step) {
            return value(step + "-rc").filter(text -> text.matches("[0-9]{1,3}")).map(Integer::valueOf);
        }

        /** Whether the download tool was wget, whose stderr holds both its headers and its messages. */
        boolean wget() {
            return "wget".equals(values.get("tool"));
        }
    }
}
