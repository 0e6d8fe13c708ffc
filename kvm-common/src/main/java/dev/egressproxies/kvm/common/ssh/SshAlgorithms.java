package dev.egressproxies.kvm.common.ssh;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.sshd.client.ClientBuilder;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.BaseBuilder;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.cipher.BuiltinCiphers;
import org.apache.sshd.common.cipher.Cipher;
import org.apache.sshd.common.kex.BuiltinDHFactories;
import org.apache.sshd.common.mac.BuiltinMacs;
import org.apache.sshd.common.mac.Mac;
import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.signature.Signature;

/**
 * The key exchanges, ciphers, MACs, host key algorithms and public key signatures one hop uses:
 * this client's defaults as ssh_config's {@code KexAlgorithms}, {@code Ciphers}, {@code MACs},
 * {@code HostKeyAlgorithms} and {@code PubkeyAcceptedAlgorithms} (or its old name {@code
 * PubkeyAcceptedKeyTypes}) change them, with OpenSSH's syntax (a list replaces the defaults; {@code +list} appends, {@code -list} removes, {@code ^list} puts
 * first; {@code *} and {@code ?} match any algorithm names). Names this client does not implement
 * are passed over, as ssh_config is shared with OpenSSH; a value that leaves none is refused.
 *
 * @param keyExchanges the key exchange names in order, or null for the defaults
 * @param ciphers      the cipher names in order, or null for the defaults
 * @param macs         the MAC names in order, or null for the defaults
 * @param hostKeys     the host key algorithm names in order, or null for the defaults (those of the
 *                     known_hosts entries first)
 * @param publicKeys   the signature algorithms public key login may use, in order, or null for the defaults
 * @param written      the options as ssh_config writes them, as check prints them: {@code KexAlgorithms
 *                     +a; Ciphers b}; empty when it sets none
 */
public record SshAlgorithms(List<String> keyExchanges, List<String> ciphers, List<String> macs,
                            List<String> hostKeys, List<String> publicKeys, String written) {
    /** This client's defaults, as when ssh_config sets none of the five. */
    public static final SshAlgorithms DEFAULT = new SshAlgorithms(null, null, null, null, null, "");

    /** Ciphers put first: AES-GCM is the fastest here (the CPU's AES instructions), as OpenSSH prefers it. */
    private static final List<BuiltinCiphers> PREFERRED_CIPHERS = List.of(BuiltinCiphers.aes128gcm,
            BuiltinCiphers.aes256gcm);

    /** Copies the lists. */
    public SshAlgorithms {
        keyExchanges = keyExchanges == null ? null : List.copyOf(keyExchanges);
        ciphers = ciphers == null ? null : List.copyOf(ciphers);
        macs = macs == null ? null : List.copyOf(macs);
        hostKeys = hostKeys == null ? null : List.copyOf(hostKeys);
        publicKeys = publicKeys == null ? null : List.copyOf(publicKeys);
        Objects.requireNonNull(written, "written");
    }

    /** One of the five ssh_config options, with this client's defaults and all it implements. */
    private enum Option {
        KEX_ALGORITHMS("KexAlgorithms", null, "key exchange", "kex",
                () -> names(ClientBuilder.setUpDefaultKeyExchanges(true)),
                () -> BuiltinDHFactories.VALUES.stream().filter(BuiltinDHFactories::isSupported)
                        .map(NamedResource::getName).toList()),
        CIPHERS("Ciphers", null, "cipher", "cipher", () -> names(defaultCiphers()),
                () -> BuiltinCiphers.VALUES.stream().filter(cipher -> cipher != BuiltinCiphers.none)
                        .filter(BuiltinCiphers::isSupported).map(NamedResource::getName).toList()),
        MACS("MACs", null, "MAC", "mac", () -> names(BaseBuilder.setUpDefaultMacs(true)),
                () -> BuiltinMacs.VALUES.stream().filter(BuiltinMacs::isSupported).map(NamedResource::getName)
                        .toList()),
        HOST_KEY_ALGORITHMS("HostKeyAlgorithms", null, "host key algorithm", "HostKeyAlgorithms",
                SshAlgorithms::defaultSignatures, SshAlgorithms::implementedSignatures),
        PUBKEY_ACCEPTED_ALGORITHMS("PubkeyAcceptedAlgorithms", "PubkeyAcceptedKeyTypes", "public key algorithm",
                "PubkeyAcceptedAlgorithms", SshAlgorithms::defaultSignatures, SshAlgorithms::implementedSignatures);

        private final String keyword;
        private final String formerKeyword;
        private final String noun;
        private final String query;
        private final Supplier<List<String>> defaults;
        private final Supplier<List<String>> implemented;

        Option(String keyword, String formerKeyword, String noun, String query, Supplier<List<String>> defaults,
                Supplier<List<String>> implemented) {
            this.keyword = keyword;
            this.formerKeyword = formerKeyword;
            this.noun = noun;
            this.query = query;
            this.defaults = defaults;
            this.implemented = implemented;
        }

        /** What ssh_config sets, under this keyword or its former one; null when nothing. */
        String valueIn(Function<String, String> values) {
            String value = values.apply(keyword);
            return value != null || formerKeyword == null ? value : values.apply(formerKeyword);
        }
    }

    /**
     * The algorithms ssh_config's values give, each null when the file does not set it.
     *
     * @param values an ssh_config keyword's value for this host, or null when no Host block sets it
     * @throws IllegalArgumentException naming the option when a value leaves no algorithm this client implements
     */
    public static SshAlgorithms fromOpenSshConfig(Function<String, String> values) {
        List<String> written = new ArrayList<>();
        Map<Option, List<String>> resolved = new EnumMap<>(Option.class);
        for (Option option : Option.values()) {
            String value = option.valueIn(values);
            if (value != null) {
                written.add(option.keyword + " " + value.strip());
                resolved.put(option, resolve(option, value));
            }
        }
        return new SshAlgorithms(resolved.get(Option.KEX_ALGORITHMS), resolved.get(Option.CIPHERS),
                resolved.get(Option.MACS), resolved.get(Option.HOST_KEY_ALGORITHMS),
                resolved.get(Option.PUBKEY_ACCEPTED_ALGORITHMS), String.join("; ", written));
    }

    /** The ciphers every session starts with: MINA's defaults, AES-GCM first. */
    public static List<NamedFactory<Cipher>> defaultCiphers() {
        List<NamedFactory<Cipher>> ciphers = new ArrayList<>();
        PREFERRED_CIPHERS.stream().filter(BuiltinCiphers::isSupported).forEach(ciphers::add);
        BaseBuilder.setUpDefaultCiphers(true).stream().filter(cipher -> !ciphers.contains(cipher))
                .forEach(ciphers::add);
        return ciphers;
    }

    /** Whether ssh_config changed none of the five. */
    public boolean isDefault() {
        return keyExchanges == null && ciphers == null && macs == null && hostKeys == null && publicKeys == null;
    }

    /** The signatures public key login may use: ssh_config's, else {@code defaults}. */
    public List<NamedFactory<Signature>> publicKeySignatures(List<NamedFactory<Signature>> defaults) {
        return publicKeys == null ? defaults : signatures(publicKeys);
    }

    /** Offers these algorithms in the session's key exchange; call before it sends its proposal. */
    public void applyTo(ClientSession session) {
        if (keyExchanges != null) {
            session.setKeyExchangeFactories(keyExchanges.stream()
                    .map(name -> ClientBuilder.DH2KEX.apply(BuiltinDHFactories.fromFactoryName(name))).toList());
        }
        if (ciphers != null) {
            session.setCipherFactories(ciphers.stream().<NamedFactory<Cipher>>map(BuiltinCiphers::fromFactoryName)
                    .toList());
        }
        if (macs != null) {
            session.setMacFactories(macs.stream().<NamedFactory<Mac>>map(BuiltinMacs::fromFactoryName).toList());
        }
        if (hostKeys != null) {
            session.setSignatureFactories(signatures(hostKeys));
        }
    }

    private static List<NamedFactory<Signature>> signatures(List<String> names) {
        return names.stream().<NamedFactory<Signature>>map(BuiltinSignatures::fromFactoryName).toList();
    }

    private static List<String> defaultSignatures() {
        return names(ClientBuilder.setUpDefaultSignatureFactories(true));
    }

    private static List<String> implementedSignatures() {
        return BuiltinSignatures.VALUES.stream().filter(BuiltinSignatures::isSupported).map(NamedResource::getName)
                .toList();
    }

    private static List<String> resolve(Option option, String value) {
        String spec = value.strip();
        char mode = spec.isEmpty() ? ' ' : spec.charAt(0);
        String list = "+-^".indexOf(mode) >= 0 ? spec.substring(1) : spec;
        List<String> patterns = List.of(list.split(",")).stream().map(String::strip).filter(name -> !name.isEmpty())
                .toList();
        if (patterns.isEmpty()) {
            throw new IllegalArgumentException("sets " + option.keyword + " to '" + value + "', which names no "
                    + option.noun + ": write a comma-separated list of names, as 'ssh -Q " + option.query + "' prints them");
        }
        List<String> defaults = option.defaults.get();
        // A wildcard expands in the order of preference: the defaults first, then the rest.
        Set<String> preferred = new LinkedHashSet<>(defaults);
        preferred.addAll(option.implemented.get());
        List<String> implemented = List.copyOf(preferred);
        Set<String> chosen = new LinkedHashSet<>();
        switch (mode) {
            case '+' -> {
                chosen.addAll(defaults);
                chosen.addAll(matching(patterns, implemented));
            }
            case '-' -> {
                List<String> removed = matching(patterns, defaults);
                defaults.stream().filter(name -> !removed.contains(name)).forEach(chosen::add);
            }
            case '^' -> {
                chosen.addAll(matching(patterns, implemented));
                chosen.addAll(defaults);
            }
            default -> chosen.addAll(matching(patterns, implemented));
        }
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException("sets " + option.keyword + " to '" + value + "', which leaves no "
                    + option.noun + " that egressctl's SSH client implements; it implements "
                    + String.join(", ", implemented) + ": name at least one of them");
        }
        return List.copyOf(chosen);
    }

    /** The names that match the patterns, pattern by pattern in the patterns' order. */
    private static List<String> matching(List<String> patterns, List<String> names) {
        Set<String> matched = new LinkedHashSet<>();
        for (String pattern : patterns) {
            Pattern regex = Pattern.compile(Pattern.quote(pattern).replace("*", "\\E.*\\Q").replace("?", "\\E.\\Q"));
            names.stream().filter(name -> regex.matcher(name).matches()).forEach(matched::add);
        }
        return List.copyOf(matched);
    }

    private static List<String> names(List<? extends NamedResource> factories) {
        return factories.stream().map(NamedResource::getName).filter(Objects::nonNull).collect(Collectors.toList());
    }
}
