import autocannon from 'autocannon';

const token = process.argv[2];
let n = 0;
await autocannon({
  url: 'http://127.0.0.1:39123/v1/public/verify',
  method: 'POST',
  connections: 32,
  duration: Number(process.argv[3] ?? 12),
  headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  requests: [
    {
      setupRequest: (r) => {
        n++;
        const h = n % 1000;
        r.body = JSON.stringify({ email_address: `user.${n}+tag@example.com`, ipv4_address: `198.51.${Math.floor(h / 256)}.${h % 256}`, show_results: true });
        return r;
      },
    },
  ],
});
console.log('sent', n);
