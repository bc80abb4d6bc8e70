/** The part of sodium-native (libsodium bindings, no types of its own) the keyring uses. */
declare module "sodium-native" {
  const sodium: {
    crypto_aead_xchacha20poly1305_ietf_NPUBBYTES: number;
    crypto_aead_xchacha20poly1305_ietf_ABYTES: number;
    randombytes_buf(out: Buffer): void;
    crypto_aead_xchacha20poly1305_ietf_encrypt(
      ciphertext: Buffer,
      message: Buffer,
      additionalData: Buffer | null,
      nsec: null,
      nonce: Buffer,
      key: Buffer,
    ): number;
    crypto_aead_xchacha20poly1305_ietf_decrypt(
      message: Buffer,
      nsec: null,
      ciphertext: Buffer,
      additionalData: Buffer | null,
      nonce: Buffer,
      key: Buffer,
    ): number;
  };
  export default sodium;
}
