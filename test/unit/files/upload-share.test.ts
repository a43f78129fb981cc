/**
 * The unit of the per-address upload share (src/files/address-group.ts) and its settings: IPv4
 * addresses count alone, IPv6 addresses by their /64, mapped IPv4 as IPv4; the share defaults to a
 * quarter of FILES_MAX_CONCURRENT_UPLOADS.
 */
import { loadConfig } from '../../../src/config';
import { addressGroup } from '../../../src/files/address-group';
import { configProblems as problems } from '../../helpers/config';

describe('addressGroup', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['::FFFF:192.168.1.2', '192.168.1.2'],
    ['2001:db8:43:7::1', '2001:db8:43:7::/64'],
    ['2001:0db8:0043:0007:ffff:1:2:3', '2001:db8:43:7::/64'],
    ['2001:DB8:43:7:a::', '2001:db8:43:7::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
  ])('%s counts as %s', (address, group) => {
    expect(addressGroup(address)).toBe(group);
  });
});

describe('upload share and pace settings', () => {
  it('default to a quarter of the slots, 30 s of silence, 1 KiB/s over each 20 s', () => {
    expect(loadConfig({}).files).toMatchObject({
      maxConcurrentUploads: 100,
      maxUploadsPerAddress: 25,
      uploadStallSeconds: 30,
      uploadMinRate: 1024,
      uploadMinRateSeconds: 20,
    });
    expect(loadConfig({ FILES_MAX_CONCURRENT_UPLOADS: '10' }).files.maxUploadsPerAddress).toBe(3);
    expect(loadConfig({ FILES_MAX_CONCURRENT_UPLOADS: '0' }).files.maxUploadsPerAddress).toBe(0);
  });

  it('read their variables; 0 turns each off', () => {
    expect(
      loadConfig({
        FILES_MAX_UPLOADS_PER_ADDRESS: '0',
        FILES_UPLOAD_STALL_TIMEOUT: '0',
        FILES_UPLOAD_MIN_RATE: '0',
        FILES_UPLOAD_MIN_RATE_PERIOD: '5',
      }).files,
    ).toMatchObject({ maxUploadsPerAddress: 0, uploadStallSeconds: 0, uploadMinRate: 0, uploadMinRateSeconds: 5 });
  });

  it.each([
    ['FILES_MAX_UPLOADS_PER_ADDRESS', '-1'],
    ['FILES_UPLOAD_STALL_TIMEOUT', 'soon'],
    ['FILES_UPLOAD_MIN_RATE', '-5'],
    ['FILES_UPLOAD_MIN_RATE_PERIOD', '0'],
  ])('%s=%s stops start-up with a message naming it', (name, value) => {
    expect(problems({ [name]: value })).toEqual([expect.stringContaining(name)]);
  });
});
